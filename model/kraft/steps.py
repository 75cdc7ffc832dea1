"""The explicit successors of the KRaft model: every step of ``Next``, broker by broker in the
spec's order (``described.next_order``), then (with ``reassignments``) PerformPartitionReassignment,
the one step no broker takes.

Every step of the spec's ``Next`` is written once in ``isrcheck.model.kraft.described`` and runs
here as the functions ``isrcheck.model.kraft.staging`` generates from it. This module holds, one
method each, the steps the symbolic form refuses, so written once already: the split fetch's three
message steps and PerformPartitionReassignment. Each reads a state tuple and appends ``(action,
next_state)`` pairs to ``out``.

Where the spec passes messages, this model keeps the one message that can be in flight in a slot
of its sender (see ``isrcheck.model.kraft`` for the argument): a STARTING broker's registration is its
status (requests of its earlier incarnations stay in flight in ``reg_requests``); a leader's
AlterPartition request, then the controller's response, is its
``alter_partition`` slot; a fetch is one atomic step.
"""

from __future__ import annotations

from . import actions as A
from .config import KraftConfig
from .controller import Controller
from .described import STEPS, next_order
from .fields import (
    BROKER_EPOCH,
    FETCH_DIVERGING,
    FETCH_ERROR,
    FETCH_FROM,
    FETCH_OK,
    FETCH_REQUEST,
    FETCHES,
    FOLLOWERS,
    HW,
    LEADER,
    LOG,
    MD_LEADER_EPOCH,
    METADATA_LOG,
    NIL,
    R_ADDING,
    R_REMOVING,
    R_REPLICAS,
    REASSIGNMENTS,
    ROLE,
    RUNNING,
    STATUS,
    Layout,
)
from .replica import Replica
from .staging import elected as elected_id
from .staging import generated_steps


def _may_enable(step: str, status: int, role: int) -> bool:
    """Whether the status/role guard of a step without a description (the split fetch's, which
    ``described.py`` does not hold) lets it fire for a broker in this status and role."""
    running = status == RUNNING
    return {
        "send_fetch_request": running,
        "receive_fetch_request": running,
        "receive_fetch_response": running,
    }.get(step, True)


class KraftSteps:
    def __init__(self, config: KraftConfig, lay: Layout) -> None:
        self.config = config
        self.gen = config.gen
        self.lay = lay
        self.g = lay.g
        self.ctl = Controller(config, lay)
        self.rep = Replica(config, lay)
        self.nv = config.values
        self.min_isr = config.min_isr
        # The steps written once (described.py) run as functions generated per acting broker; the
        # others are this class's methods.
        derived = generated_steps(config, lay, self.ctl)
        by_method = {d.method: d for d in STEPS.values()}

        def at(name: str, b: int, st: int, role: int) -> tuple:
            if name in by_method:
                fn = derived[name][b]
                return (fn,) if fn is not None and by_method[name].enabled(st, role) else ()
            return (getattr(self, name),) if _may_enable(name, st, role) else ()

        # The steps each broker's (status, role) can enable, in the spec's order: each step's own
        # first guard, applied once per configuration instead of once per state (a hot-path saving,
        # same successors).
        order = next_order(config)
        self.enabled_by = tuple({(st, role): tuple(fn for name in order for fn in at(name, b, st, role))
                                 for st in range(5) for role in range(3)} for b in lay.brokers)

    def successors(self, state: tuple) -> list:
        out: list = []
        base = self.lay.base
        enabled_by = self.enabled_by
        for b in self.lay.brokers:
            o = base[b]
            for step in enabled_by[b][state[o + STATUS], state[o + ROLE]]:
                step(state, b, out)
        if self.config.reassignments:
            self.perform_partition_reassignment(state, out)
        return out

    # -- reassignment (KIP-455) -------------------------------------------------------------------------

    def perform_partition_reassignment(self, state: tuple, out: list) -> None:
        """``PerformPartitionReassignment``, at most ``reassignments`` times, one at a time: every
        (adding, removing) that ``ValidReassignment`` allows (some change; adding brokers that are not
        replicas, removing replicas; a target of at least MinISR replicas)."""
        g = self.g
        if state[g + REASSIGNMENTS] >= self.config.reassignments:
            return
        cur = state[g + METADATA_LOG][-1]
        if cur[R_ADDING] or cur[R_REMOVING]:
            return
        lay = self.lay
        replicas = cur[R_REPLICAS]
        for adding in range(1 << lay.n):
            if adding & replicas:
                continue
            for removing in range(1 << lay.n):
                if removing & ~replicas or not (adding or removing):
                    continue
                if lay.size[replicas] + lay.size[adding] - lay.size[removing] < self.min_isr:
                    continue
                if not self.placement_allowed((replicas | adding) & ~removing):
                    continue
                s = list(state)
                s[g + REASSIGNMENTS] += 1
                for t, elected in self.ctl.reassign(s, adding, removing):
                    out.append((A.PerformPartitionReassignment(tuple(lay.ids(adding)), tuple(lay.ids(removing)),
                                                               elected_id(elected)), tuple(t)))

    def placement_allowed(self, target: int) -> bool:
        """Whether a reassignment may choose ``target`` as the replica set: with rack-aware placement
        (Kafka's ``assignReplicasToBrokersRackAware``, as ``kafka-reassign-partitions --generate``
        proposes; the specs have no racks) it spans min(its size, racks) racks; naive: any target."""
        c = self.config
        if not c.racks or not c.rack_aware:
            return True
        members = self.lay.members[target]
        return len({b % c.racks for b in members}) == min(len(members), c.racks)

    # -- the fetch as the spec's three message steps (option split_fetch; no symbolic form) -------------

    def send_fetch_request(self, state: tuple, f: int, out: list) -> None:
        """``SendFetchRequest``: at most one request per fetcher (peer) in flight."""
        fo = self.lay.base[f]
        leader = state[fo + FETCH_FROM]
        if leader == NIL or state[fo + FETCHES][leader]:
            return
        flog = state[fo + LOG]
        slots = list(state[fo + FETCHES])
        slots[leader] = (FETCH_REQUEST, len(flog), state[fo + MD_LEADER_EPOCH], flog[-1] // self.nv if flog else 0,
                         state[fo + BROKER_EPOCH])
        s = list(state)
        s[fo + FETCHES] = tuple(slots)
        out.append((A.SendFetchRequest(f + 1, leader + 1, len(flog)), tuple(s)))

    def receive_fetch_request(self, state: tuple, b: int, out: list) -> None:
        """``ReceiveFetchRequest`` at broker b, from each follower with a request to b in flight: an
        error if b is not leader at the request's leader epoch, a diverging epoch, or the next record
        (b records the follower's offset and broker epoch and may advance its HW)."""
        lay = self.lay
        lo = lay.base[b]
        for f in lay.brokers:
            fo = lay.base[f]
            slot = state[fo + FETCHES][b] if f != b else 0
            if not slot or slot[0] != FETCH_REQUEST:
                continue
            _, fetch_offset, leader_epoch, last_fetched_epoch, broker_epoch = slot
            s = list(state)
            le = state[lo + MD_LEADER_EPOCH]
            if state[lo + ROLE] != LEADER or le != leader_epoch:
                response = (FETCH_ERROR, fetch_offset, le)
                result = "error"
            else:
                diverging = self.rep.last_offset_for_epoch(state, b, last_fetched_epoch, True)
                if diverging[0] < last_fetched_epoch or diverging[1] < fetch_offset:
                    response = (FETCH_DIVERGING, fetch_offset, le, diverging)
                    result = "diverging"
                else:
                    known = list(state[lo + FOLLOWERS])
                    known[f] = (fetch_offset, broker_epoch)
                    known = tuple(known)
                    s[lo + FOLLOWERS] = known
                    hw = self.rep.advance_hw[b](state, s)  # described_replica.advance_hw, generated
                    llog = state[lo + LOG]
                    response = (FETCH_OK, fetch_offset, le, hw, llog[fetch_offset] if fetch_offset < len(llog) else -1)
                    result = "ok"
            slots = list(state[fo + FETCHES])
            slots[b] = response
            s[fo + FETCHES] = tuple(slots)
            out.append((A.ReceiveFetchRequest(b + 1, f + 1, fetch_offset, result), tuple(s)))

    def receive_fetch_response(self, state: tuple, f: int, out: list) -> None:
        """``ReceiveFetchResponse``: a no-op unless the partition is still on this fetcher at the same
        offset and leader epoch; then truncate (diverging epoch) or append and take the HW."""
        lay = self.lay
        fo = lay.base[f]
        for leader, slot in enumerate(state[fo + FETCHES]):
            if not slot or slot[0] == FETCH_REQUEST:
                continue
            s = list(state)
            slots = list(state[fo + FETCHES])
            slots[leader] = 0
            s[fo + FETCHES] = tuple(slots)
            flog = state[fo + LOG]
            kind, fetch_offset, le = slot[0], slot[1], slot[2]
            result = "ignored"
            if state[fo + FETCH_FROM] == leader and fetch_offset == len(flog) and state[fo + MD_LEADER_EPOCH] == le:
                if kind == FETCH_DIVERGING:
                    cut = self.rep.truncation_point(state, f, slot[3])
                    s[fo + LOG] = flog[:cut]
                    result = f"truncated to {cut}"
                elif kind == FETCH_OK:
                    hw, record = slot[3], slot[4]
                    if record >= 0:
                        flog = flog + (record,)
                        s[fo + LOG] = flog
                    if hw <= len(flog):
                        s[fo + HW] = hw
                    result = "appended" if record >= 0 else "ok"
                else:
                    result = "error"
            out.append((A.ReceiveFetchResponse(f + 1, leader + 1, fetch_offset, result), tuple(s)))
