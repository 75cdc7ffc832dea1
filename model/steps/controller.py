"""Steps every generation shares: the controller, LeaderAndIsr requests naming a leader, producers.

Modelled (``KafkaReplication.tla``):

- ``ControllerElectLeader``: clean leader election; the controller picks any quorum-ISR member
  other than the current leader, bumps the leader epoch and sends a LeaderAndIsr request.
- ``ControllerShrinkIsr``: the controller removes a replica from the quorum ISR (broker failure or
  controlled shutdown; a removed leader leaves the partition leaderless, and a sole-ISR leader is
  un-led but kept in the ISR). The spec does not model failures as events: a removed replica may
  keep fetching (a zombie) or stop, and both are explored (with ``max_crashes`` the stops are
  steps of their own, ``model.steps.failures``).
- ``BecomeLeader``: a replica named leader by a request of a higher epoch than it has seen adopts
  it, keeping its (possibly stale) high watermark.
- ``LeaderWrite``: a producer appends to any replica that *presumes* leadership, stamped with that
  replica's leader epoch (fencing of zombie leaders is left to ISR updates, as in Kafka). With
  the ``acks`` option the write is the produce request reaching the leader
  (``Partition.appendRecordsToLeader``): acks=1 acknowledges it at once; acks=all refuses it while
  the leader's cached ISR is smaller than ``min.insync.replicas`` (NotEnoughReplicasException).

A step whose acting broker is stopped (the ``dead`` field) is not taken: a stopped broker elects
nothing, adopts no request and appends nothing; ``ControllerShrinkIsr`` of a stopped broker is the
controller's failure detection and stays.

Abstracted away: ZooKeeper itself and the propagation of its state (quorum updates are atomic and
seen by everyone), controller failover. LeaderAndIsr requests are a growing set that replicas read
in any order, so lost, late and duplicated requests are all covered; a request naming no leader is
never acted on (the spec's followers and leaders quantify over ``Replicas``, never ``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..encoding.state import EPOCH, ISR, LEADER

Step = Callable[[tuple, list], None]


class NamedRequests(dict):
    """``named[requests]``: (epoch, leader, isr) of every LeaderAndIsr request in the tuple that
    names a leader (the only ones a replica acts on), by ascending epoch. Memoised per requests
    tuple: there are few distinct ones, and three steps read them on every state."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def __missing__(self, requests: tuple) -> tuple:
        n, mask = self.n, (1 << self.n) - 1
        named = tuple((epoch, (code >> n) - 1, code & mask) for epoch, code in enumerate(requests) if code >> n)
        self[requests] = named
        return named


def stopped_brokers(t: Any) -> tuple[int, bool]:
    """The position of the stopped-brokers mask (``dead``) and whether the model has it: a stopped
    broker takes no step of its own."""
    return t.fields.dead, t.fields.dead >= 0


def running(t: Any) -> tuple[tuple, tuple | None, int]:
    """``(blocks, live, dead_i)`` for a step that loops over the running replicas: in state ``s``
    they are ``live[s[dead_i]] if live else blocks``, (replica, block offset) pairs in ascending
    order (``live`` is None when brokers never stop: one test per state, no call)."""
    dead_i = t.fields.dead
    return t.layout.blocks, (t.layout.running_blocks if dead_i >= 0 else None), dead_i


def controller_elect_leader(t: Any) -> Step:
    """``ControllerElectLeader`` (KafkaReplication.tla; ZooKeeper-era controller)."""
    lay = t.layout
    n, members, bit = lay.n, lay.members, lay.bit
    ql_i, qi_i, rq_i = lay.q_leader, lay.q_isr, lay.requests_i
    max_epoch = t.config.max_leader_epoch
    acts = t.actions.elect
    dead_i, stops = stopped_brokers(t)

    def step(s: tuple, out: list) -> None:
        reqs = s[rq_i]
        epoch = len(reqs)
        if epoch > max_epoch:
            return
        ql, qi = s[ql_i], s[qi_i]
        dead = s[dead_i] if stops else 0
        head, tail = s[:ql_i], s[rq_i + 1 :]
        for new_leader in members[qi]:
            if new_leader != ql and not dead & bit[new_leader]:
                request = ((new_leader + 1) << n) | qi
                out.append((acts[new_leader][epoch], head + (new_leader, qi, reqs + (request,)) + tail))

    return step


def controller_shrink_isr(t: Any) -> Step:
    """``ControllerShrinkIsr`` (KafkaReplication.tla): the controller takes replica ``r`` out."""
    lay = t.layout
    n, bit, replicas = lay.n, lay.bit, lay.replicas
    ql_i, rq_i = lay.q_leader, lay.requests_i
    max_epoch = t.config.max_leader_epoch
    acts = t.actions.controller_shrink

    def step(s: tuple, out: list) -> None:
        reqs = s[rq_i]
        epoch = len(reqs)
        if epoch > max_epoch:
            return
        ql, qi = s[ql_i], s[ql_i + 1]
        head, tail = s[:ql_i], s[rq_i + 1 :]
        for r in replicas:
            if ql == r:
                # The leader fails: leaderless; it stays in the ISR only if it is the sole member.
                new_leader, new_isr = -1, (qi if qi == bit[r] else qi & ~bit[r])
            elif qi & bit[r]:
                # A follower fails (the current spec no longer requires it not to be the sole member).
                new_leader, new_isr = ql, qi & ~bit[r]
            else:
                continue
            request = ((new_leader + 1) << n) | new_isr
            out.append((acts[r][epoch], head + (new_leader, new_isr, reqs + (request,)) + tail))

    return step


def become_leader(t: Any) -> Step:
    """``BecomeLeader`` (KafkaReplication.tla): a replica adopts a newer request naming it leader."""
    base, bit, rq_i = t.layout.base, t.layout.bit, t.layout.requests_i
    named = NamedRequests(t.layout.n)
    acts = t.actions.become_leader
    dead_i, stops = stopped_brokers(t)

    def step(s: tuple, out: list) -> None:
        dead = s[dead_i] if stops else 0
        for epoch, leader, isr in named[s[rq_i]]:
            b = base[leader]
            if epoch > s[b + EPOCH] and not dead & bit[leader]:
                out.append((acts[leader][epoch], s[: b + EPOCH] + (epoch, leader, isr) + s[b + ISR + 1 :]))

    return step


def leader_write(t: Any) -> Step:
    """``LeaderWrite`` (KafkaReplication.tla), with the ``acks`` option's produce-request rules."""
    lay = t.layout
    nr_i = lay.next_record_id
    max_records, log_size = t.config.max_records, t.config.log_size
    length, pow_, epochs = t.logs.length, t.logs.pow, t.logs.epochs
    acts = t.actions.write
    acked_i = t.fields.acked
    blocks, live, dead_i = running(t)
    ack_on_append, min_isr = t.options.acks == "1", t.options.min_insync_replicas if t.options.acks == "all" else 0
    popcount = tuple(bin(m).count("1") for m in range(1 << lay.n))

    def step(s: tuple, out: list) -> None:
        record_id = s[nr_i]
        if record_id >= max_records:
            return
        for r, b in live[s[dead_i]] if live else blocks:
            if s[b + LEADER] == r:
                log = s[b]
                k = length[log]
                if k < log_size:
                    if min_isr and popcount[s[b + ISR]] < min_isr:
                        continue  # acks=all: NotEnoughReplicasException, the produce request is refused
                    epoch = s[b + EPOCH]
                    new_log = log + (record_id * epochs + epoch + 1) * pow_[k]
                    nxt = s[:b] + (new_log,) + s[b + 1 : nr_i] + (record_id + 1,) + s[nr_i + 1 :]
                    if ack_on_append:  # acks=1: acknowledged on the leader's append
                        nxt = nxt[:acked_i] + (nxt[acked_i] | 1 << record_id,) + nxt[acked_i + 1 :]
                    out.append((acts[r][record_id][epoch][k], nxt))

    return step
