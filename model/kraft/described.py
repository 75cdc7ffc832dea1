"""The KRaft family's steps written once, named by their TLA+ action, and read both ways: as the
explicit successor function's Python (``isrcheck.model.kraft.staging`` writes it as straight-line
source, one function per step and acting broker) and as the z3 relation of ``bmc`` and ``prove``
(``isrcheck.model.kraft.symbolic.derived`` runs the same function on the state variables, one
``SymStep`` per acting broker and per build-time case).

A step is a function of one argument ``x``, the back end's operations (``Ops`` names them). It may
branch in Python only on build-time values: the generation's rules (``x.gen``), the constants
(``x.config``) and the cases it declares (``x.cases``). Everything read from the state is a value
of the back end, combined with ``x.and_``, ``x.or_``, ``x.not_``, ``x.ite`` and Python's comparison
and arithmetic operators. Reads (``x.get``, ``x.glob``) see the state before the step, writes
(``x.put``, ``x.gput``) make the next state, and ``x.emit`` hands the successor over with its
action; each choice of the acting broker and of the cases emits at most one successor.

Every step a broker takes is described here, and so are the functions the steps reach: the
controller's election and partition changes (``described_controller.py``), the HW and the
acknowledgements (``described_replica.py``), the replica's functions over offsets and epochs
(``functions.py``) and the rules where the generations differ (``rules.py``). Each reading answers
only the operations below, on its own encoding of the state (docs/architecture.md, "One
description", the KRaft family). What each step models is in its docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import actions as A
from .described_controller import alter_partition, elections
from .described_replica import advance_hw, fail_pending_writes, hw_on_partition_change, renounce
from .fields import (
    AP_ACCEPTED,
    AP_ACCEPTED_NEW_EPOCH,
    AP_REJECTED,
    AP_REQUEST,
    FOLLOWER,
    LEADER,
    NIL,
    NO_ROLE,
    OFFLINE_CLEAN,
    OFFLINE_DIRTY,
    RUNNING,
    STARTING,
    STARTING_REGISTERED,
    VALUES,
)
from .functions import truncation_point


class Ops(Protocol):
    """What a step may call (both back ends implement it; see the module docstring).

    Control: ``require(*conds)``, ``cases(name)`` (the build-time case of this instance: the writer
    runs every value of the step's ``cases[name]`` in order, the reader one per ``SymStep``; a step
    makes its updates inside the cases, none before the split),
    ``elected_choices()`` (the controller's choice of a leader: -1, none, then each broker, as
    build-time values explicitly, a choice in z3; ``described_controller.py``'s elections read it
    after the step's own updates, which each choice continues from), ``single(c, when)`` (the set
    {c} where ``when`` holds, empty for -1), ``elected_id(c, stays)`` (the choice as the action
    shows it).
    Logic: ``and_``, ``or_``, ``not_``, ``ite``, ``one_of(v, values)``. The state, by the field
    names of ``isrcheck.model.kraft.fields``: ``get(b, name)`` (a broker's field), ``glob(name)``
    (a global field), ``no_brokers()`` (the empty broker set), ``at_least(set, m)``, ``log_end(b)``,
    ``value_sent(v)``, ``no_floor`` (the write floor's "none"), ``let(v)`` (computed once). The next
    state: ``put(b, name, v)``, ``gput(name, v)``, ``append_record(b, epoch, value)``,
    ``mark_sent(v)``, ``clear_log(b)``, ``blank_leadership(b)`` (followers, AlterPartition slot, write floor), then
    ``emit(action_class, *args)``. Two updates touch only what the symbolic form leaves out (it
    refuses the configurations where they matter, ``symbolic/vars.py``): ``keep_registration_in_flight(b)``
    (``reg_requests``) and ``drop_fetch_sessions(b)`` (``fetches``); the z3 reading skips them.
    ``controller_isr_is(b)``: the controller's ISR is {b}. The AlterPartition slot: ``ap_phase(b)``
    (0: empty), ``ap_proposed(b)``, ``ap_replicas(b)`` (the replica set an accepted response
    carries). The HW (read by ``described_replica.py``, which writes MaybeAdvanceHighWatermark,
    MaybeUpdateHwmAndAckOnPartitionChange and EnsureLeadershipRenounced once on these operations):
    ``commit_offset(b, members, leo, known)`` (``functions.commit_offset`` of leader b, with what b
    knows of its followers after the updates so far if ``known``, else before the step),
    ``hw_isr_ok(isr)`` (``rules.hw_isr_ok``), ``later(v)`` (``v`` computed once, in the order of the
    updates: it may read what they wrote); the ghost variables: ``ghost(name, v)`` (value v in
    ``acked`` or ``nacked``), ``ghost_add(name, v, when)``, ``next_log_holds(b, lo, hi, v)`` (v at an
    offset in [lo, hi) of b's log after the updates so far), ``consume_up_to(b, hw, when)`` (the
    true HW raised to ``hw``, the records below it consumed from b's log). A fetch:
    ``last_offset_for_epoch(b, epoch, is_leader)`` (a pair; the truncation point is
    ``functions.truncation_point`` on it, written once on these operations), ``last_fetched_epoch(f)``,
    ``truncate_log(f, offset)``, ``record_follower(ld, f, leo, broker_epoch)`` (what the leader knows
    of f; ``described_replica.advance_hw(x, ld, leo, known=True)`` then counts it),
    ``copy_next_record(f, ld, offset)`` and ``next_log_end(f)`` (f's LEO after the updates).
    Broker sets: ``member(s, f)``, ``set_of(bools)``,
    ``union(a, b)``, ``same_set(a, b)``, ``loses(a, b)`` (some member of a is not in b),
    ``is_replica(b, f)`` (in b's replica set), ``ids(s)`` (the set as the action shows it); what
    leader b knows of follower f: ``follower_leo(b, f)``, ``follower_epoch(b, f)``;
    ``put_ap_request(b, proposed, epochs)`` fills b's AlterPartition slot with a request,
    ``ap_epoch(b, f)`` reads the broker epoch it names for f, ``put_ap_phase(b, phase)`` answers it.
    The controller: ``controller(field)`` (the metadata log's last record: ``leader``,
    ``partition_epoch``, ``leader_epoch``, ``isr``, ``elr``, ``replicas``),
    ``change_partition(leader, leader_epoch, isr, elr, when)`` (``ApplyPartitionChange`` where
    ``when`` holds: the next PartitionChange record, KIP-966's last known ELR with it), the rules
    of ``rules.py`` on sets (``update_elr``, ``isr_after_fencing``, ``candidates``),
    ``difference(a, b)``; with a
    reassignment in progress (explicit only: the symbolic form refuses reassignment)
    ``completes_reassignment(b)`` and ``reassignment_completions(b)`` (each leader the completed
    reassignment may have, as its id, with the change applied in a new leader epoch).
    Registrations: ``metadata_length()``; ``stale_requests(b)`` (explicit only, as the symbolic form
    refuses configurations with more than one shutdown: each request of b's earlier incarnations
    still in flight, requests that sent the same epoch once, as ``(sent_epoch, the others)``).
    The metadata log: ``metadata_records(b)`` (each record from b's metadata offset on, as
    ``(offset, record)``: a loop explicitly, a choice in z3), ``record(rec, field)`` (``leader``,
    ``leader_epoch``, ``partition_epoch``, ``isr``, ``replicas``); ``keep_followers(b, isr, was_leader)``
    (a leader keeps what it knew of the ISR's members, a new one knows nothing).
    """

    n: int
    gen: Any  # isrcheck.model.kraft.generations.KraftGeneration
    config: Any  # isrcheck.model.kraft.config.KraftConfig


@dataclass(frozen=True)
class Described:
    """A step: its TLA+ action (the action class it emits is named so), its place in the spec's
    order (the ``steps.KraftSteps`` method name ``next_order`` lists), the build-time
    cases it branches on (name -> the values, from the configuration and the acting broker), and
    the description."""

    name: str
    method: str
    fn: Callable[[Any, int], None]
    cases: dict[str, Callable[[Any, int], Iterable[Any]]] = field(default_factory=dict)
    label: str = ""  # the action class, where its name is not the step's (both shutdowns: Shutdown)
    # Whether a broker's (status, role) lets the step's first guard hold (the explicit successors
    # call it only for those, a hot-path saving decided once per configuration).
    enabled: Callable[[int, int], bool] = lambda status, role: True


# The described steps, by TLA+ action.
STEPS: dict[str, Described] = {}
# Forms of steps a user's variant registers (isrcheck.model.kraft.variants.step_form), by form name.
FORMS: dict[str, Described] = {}


def steps_of(gen: Any) -> dict[str, Described]:
    """The described steps of generation ``gen``, by TLA+ action: the built-in ones, with a
    variant's forms (``gen.forms``) in place of the steps they replace."""
    if not gen.forms:
        return STEPS
    missing = [f for f in gen.forms if f not in FORMS]
    if missing:  # a process that has not loaded the user's file defining them
        raise ValueError(f"generation {gen.name!r}: step form(s) {', '.join(missing)} are not registered in this "
                         "process: load the file that defines them (step_form) first")
    return {**STEPS, **{FORMS[f].name: FORMS[f] for f in gen.forms}}


def step(name: str, method: str, cases: dict[str, Callable[[Any, int], Iterable[Any]]] | None = None,
         label: str = "", enabled: Callable[[int, int], bool] | None = None
         ) -> Callable[[Callable[[Any, int], None]], Callable[[Any, int], None]]:
    def register(fn: Callable[[Any, int], None]) -> Callable[[Any, int], None]:
        STEPS[name] = Described(name, method, fn, cases or {}, label or name, enabled or (lambda st, role: True))
        return fn

    return register


def next_order(config: Any) -> tuple[str, ...]:
    """A broker's steps in the order of the spec's ``Next`` (``KraftSteps`` method names: the
    described steps, and the split fetch's and reassignment's own), for each broker in turn; the
    explicit successors come in this order."""
    fetch = (("send_fetch_request", "receive_fetch_request", "receive_fetch_response")
             if config.split_fetch else ("fetch",))
    return ("broker_start", "receive_broker_reg_response", "receive_metadata_update", "send_alter_partition_request",
            "receive_alter_partition_response", *fetch, "write_record_to_leader", "lossy_shutdown",
            "clean_shutdown", "receive_broker_reg_request", "receive_alter_partition_request", "fence_broker",
            "unfence_broker")


def running(status: int, role: int) -> bool:
    return status == RUNNING


def leading(status: int, role: int) -> bool:
    return status == RUNNING and role == LEADER


def up(status: int, role: int) -> bool:
    return status not in (OFFLINE_CLEAN, OFFLINE_DIRTY)


def offline(x: Ops, b: int) -> Any:
    status = x.get(b, "status")
    return x.or_(status == OFFLINE_CLEAN, status == OFFLINE_DIRTY)


# -- broker lifecycle (KIP-903 broker epochs) -----------------------------------------------------------

@step("BrokerStart", "broker_start", enabled=lambda status, role: not up(status, role))
def broker_start(x: Ops, b: int) -> None:
    """``BrokerStart``: a stopped broker starts; 3.5 with broker epoch 0, KIP-966 with the epoch on disk."""
    x.require(offline(x, b))
    x.put(b, "status", STARTING)
    if not x.gen.broker_epoch_on_disk:
        x.put(b, "broker_epoch", 0)
    x.put(b, "role", NO_ROLE)
    x.emit(A.BrokerStart, b + 1)


@step("ReceiveBrokerRegResponse", "receive_broker_reg_response",
      enabled=lambda status, role: status == STARTING_REGISTERED)
def receive_broker_reg_response(x: Ops, b: int) -> None:
    """``ReceiveBrokerRegResponse``: RUNNING with the epoch the response carries (the controller may
    have moved on since, by a stale registration); partition metadata blank until the next metadata
    record re-initialises the replica."""
    x.require(x.get(b, "status") == STARTING_REGISTERED)
    epoch = x.get(b, "reg_response")
    x.put(b, "status", RUNNING)
    x.put(b, "broker_epoch", epoch)
    x.put(b, "reg_response", 0)
    x.put(b, "md_replicas", x.no_brokers())
    x.put(b, "md_isr", x.no_brokers())
    x.put(b, "md_maximal_isr", x.no_brokers())
    x.put(b, "md_leader", NIL)
    x.put(b, "md_leader_epoch", 0)
    x.put(b, "md_partition_epoch", 0)
    x.emit(A.ReceiveBrokerRegResponse, b + 1, epoch)


def _requests(c: Any, b: int) -> tuple[str, ...]:
    """The current incarnation's request, and the stale ones of earlier incarnations, which only
    a broker that shut down while STARTING leaves in flight (so not with one shutdown in all)."""
    return ("current", "stale") if c.lossy_shutdowns + c.clean_shutdowns > 1 else ("current",)


def _unclean_kinds(c: Any, b: int) -> tuple[bool, ...]:
    return (True, False) if c.gen.broker_epoch_on_disk else (False,)


@step("ReceiveBrokerRegRequest", "receive_broker_reg_request",
      cases={"request": _requests, "unclean": _unclean_kinds})
def receive_broker_reg_request(x: Ops, b: int) -> None:
    """``ReceiveBrokerRegRequest``: a new broker epoch, unfenced (KIP-966: unclean if it sent epoch 0).

    The spec's guard is the incarnation check: the controller accepts a request while b's
    registration is FENCED, or UNFENCED at the request's own incarnation. The second never holds
    for a request still in flight (each incarnation sends one request, and the controller records
    its incarnation only when processing it, which consumes it), so what decides is: refused while
    the registration is UNFENCED, whoever's incarnation holds it. Requests of incarnations that
    shut down stay in flight (``reg_requests``), as in the spec: processing one is the lost
    registration (the controller holds an offline broker UNFENCED at a new epoch; its response
    can never match an incarnation again, so it is dropped here), and the broker's next
    registration is refused until it is fenced again."""
    x.require(x.not_(x.get(b, "c_unfenced")))
    epoch = x.let(x.glob("last_broker_epoch") + 1)
    for request in x.cases("request"):
        if request == "current":
            x.require(x.get(b, "status") == STARTING)
            register(x, b, epoch, x.get(b, "broker_epoch"), None)
        else:
            for sent, rest in x.stale_requests(b):
                register(x, b, epoch, sent, rest)


def register(x: Ops, b: int, epoch: Any, sent: Any, rest: Any) -> None:
    """The controller's side of one registration; ``rest`` is None for the current incarnation's
    request (its response goes in flight, with the metadata offset the broker will catch up to
    "bar one" record), else the stale requests left after this one."""
    for unclean in x.cases("unclean"):
        if x.gen.broker_epoch_on_disk:
            x.require(sent == 0 if unclean else sent != 0)
        x.gput("last_broker_epoch", epoch)
        x.put(b, "c_broker_epoch", epoch)
        if rest is None:
            x.put(b, "status", STARTING_REGISTERED)
            x.put(b, "reg_response", epoch)
            x.put(b, "md_offset", x.metadata_length() - 1)
        else:
            x.put(b, "reg_requests", rest)
        for elected in elections(x, "unclean_broker" if unclean else "broker_unfenced", b):
            x.emit(A.ReceiveBrokerRegRequest, b + 1, epoch, unclean, elected, rest is not None)


@step("UnfenceBroker", "unfence_broker", enabled=running)
def unfence_broker(x: Ops, b: int) -> None:
    """``UnfenceBroker`` (a heartbeat): never limited, as healing actions are not in the spec."""
    x.require(x.not_(x.get(b, "c_unfenced")), x.get(b, "status") == RUNNING)
    for elected in elections(x, "broker_unfenced", b):
        x.emit(A.UnfenceBroker, b + 1, elected)


@step("FenceBroker", "fence_broker")
def fence_broker(x: Ops, b: int) -> None:
    """``FenceBroker`` (missed heartbeats), at most ``fencings`` times."""
    x.require(x.config.fencings > 0, x.glob("fencings") < x.config.fencings, x.get(b, "c_unfenced"))
    x.gput("fencings", x.glob("fencings") + 1)
    for elected in elections(x, "broker_fenced", b):
        x.emit(A.FenceBroker, b + 1, elected)


def stopped(x: Ops, b: int, lossy: bool, keep_epoch: bool) -> None:
    """The broker-side effects of both shutdowns (``DropFetchSessions`` and the rest)."""
    x.keep_registration_in_flight(b)  # a STARTING broker's RegisterBroker stays in flight (the spec's network)
    x.put(b, "reg_response", 0)  # a response to this incarnation can never be received: dropped
    x.put(b, "status", OFFLINE_DIRTY if lossy else OFFLINE_CLEAN)
    if not keep_epoch:
        x.put(b, "broker_epoch", 0)
    x.put(b, "fetch_from", NIL)
    fail_pending_writes(x, b, x.and_(x.get(b, "role") == LEADER, x.get(b, "hw") < x.log_end(b)))
    x.put(b, "role", NO_ROLE)
    if lossy:
        x.clear_log(b)
        x.put(b, "hw", 0)
        x.put(b, "epoch_start", NIL)
    x.blank_leadership(b)
    if x.config.split_fetch:
        x.drop_fetch_sessions(b)


@step("UncleanShutdown", "lossy_shutdown", label="Shutdown", enabled=up)
def lossy_shutdown(x: Ops, b: int) -> None:
    """``UncleanShutdown`` (3.5) / ``DataLossShutdown`` (KIP-966): the whole log is lost; the
    controller fences the broker at once. AvoidLastReplicaStanding (3.5): not for the last ISR member."""
    limit = x.config.lossy_shutdowns
    x.require(limit > 0, x.glob("unclean_shutdowns") < limit, x.not_(offline(x, b)))
    if x.config.avoid_last_replica_standing:
        x.require(x.not_(x.controller_isr_is(b)))
    stopped(x, b, lossy=True, keep_epoch=False)
    x.gput("unclean_shutdowns", x.glob("unclean_shutdowns") + 1)
    for elected in elections(x, "broker_fenced", b):
        x.emit(A.Shutdown, x.gen.lossy_shutdown, b + 1, False, elected)


def _clean_kinds(c: Any, b: int) -> tuple[bool, ...]:
    return (True, False) if c.gen.broker_epoch_on_disk else (True,)


@step("CleanShutdown", "clean_shutdown", cases={"clean": _clean_kinds}, label="Shutdown", enabled=up)
def clean_shutdown(x: Ops, b: int) -> None:
    """``CleanShutdown`` (3.5) / ``NoDataLossShutdown`` (KIP-966: clean, saving the broker epoch on
    disk, or a crash that keeps the log but saves no epoch)."""
    limit = x.config.clean_shutdowns
    x.require(limit > 0, x.glob("clean_shutdowns") < limit, x.not_(offline(x, b)))
    for clean in x.cases("clean"):
        stopped(x, b, lossy=False, keep_epoch=clean and x.gen.broker_epoch_on_disk)
        x.gput("clean_shutdowns", x.glob("clean_shutdowns") + 1)
        for elected in elections(x, "broker_fenced", b):
            x.emit(A.Shutdown, x.gen.clean_shutdown, b + 1, clean, elected)


# -- metadata propagation ----------------------------------------------------------------------------------

def _record_outcomes(c: Any, b: int) -> tuple[str, ...]:
    """What a record b replicates does: nothing (MetadataNoOp: not newer), DeletePartition (only with
    reassignment: b is no longer a replica), or one of the sub-actions of a newer record."""
    delete = ("DeletePartition",) if c.reassignments else ()
    return ("MetadataNoOp", *delete, "RemainLeader", "BecomeLeaderInNewEpoch", "RemainFollower",
            "BecomeFollowerInNewEpoch", "WaitForLeaderChange")


@step("ReceiveMetadataUpdate", "receive_metadata_update", cases={"then": _record_outcomes}, enabled=running)
def receive_metadata_update(x: Ops, b: int) -> None:
    """``ReceiveMetadataUpdate``: jump to any unreplicated record that concerns this replica
    (``PartitionNeedsAction``: leaders react to every change, replicas to a new leader epoch, a
    broker that is not (yet) a replica to a record that makes it one) and apply it if its partition
    epoch is newer: the sub-action its CASE names (none where b is a replica neither before nor
    after)."""
    x.require(x.get(b, "status") == RUNNING)
    was_replica = x.member(x.get(b, "md_replicas"), b)
    old_leader, old_le = x.get(b, "md_leader"), x.get(b, "md_leader_epoch")
    for off, rec in x.metadata_records(b):
        leader, le, isr = x.record(rec, "leader"), x.record(rec, "leader_epoch"), x.record(rec, "isr")
        in_record = x.member(x.record(rec, "replicas"), b)
        x.require(x.or_(x.get(b, "role") == LEADER, x.and_(was_replica, le > old_le),
                        x.and_(x.not_(was_replica), in_record)))
        newer = x.let(x.record(rec, "partition_epoch") > x.get(b, "md_partition_epoch"))
        remain = x.let(x.and_(old_leader == b, leader == b, old_le == le))
        for then in x.cases("then"):
            x.put(b, "md_offset", off + 1)
            if then == "MetadataNoOp":
                x.require(x.not_(newer))
            elif then == "DeletePartition":
                x.require(newer, x.not_(in_record), was_replica)
                delete_partition(x, b, isr, leader)
            else:
                x.require(newer, in_record)
                apply_record(x, b, then, rec, remain)
            x.emit(A.ReceiveMetadataUpdate, b + 1, off + 1, then)


def apply_record(x: Ops, b: int, then: str, rec: Any, remain: Any) -> None:
    """The sub-action ``then`` of a newer record that keeps b a replica: its guard and its updates."""
    leader, le, isr = x.record(rec, "leader"), x.record(rec, "leader_epoch"), x.record(rec, "isr")
    old_leader, old_le = x.get(b, "md_leader"), x.get(b, "md_leader_epoch")
    x.put(b, "md_replicas", x.record(rec, "replicas"))
    x.put(b, "md_isr", isr)
    x.put(b, "md_maximal_isr", isr)
    x.put(b, "md_leader", leader)
    x.put(b, "md_leader_epoch", le)
    x.put(b, "md_partition_epoch", x.record(rec, "partition_epoch"))
    if then == "RemainLeader":
        x.require(remain)
        hw_on_partition_change(x, b, isr, isr)
        x.put(b, "alter_partition", 0)  # its partition epoch is at least the awaited one
        return
    x.require(x.not_(remain))
    if then == "BecomeLeaderInNewEpoch":
        # The epoch starts at the LEO; a new leader knows nothing of its followers (a re-elected
        # one keeps what it knew of ISR members).
        x.require(leader == b)
        x.put(b, "role", LEADER)
        hw_on_partition_change(x, b, isr, isr)
        x.put(b, "epoch_start", x.log_end(b))
        x.keep_followers(b, isr, x.get(b, "role") == LEADER)
        x.put(b, "alter_partition", 0)
        x.put(b, "fetch_from", NIL)
        return
    x.require(leader != b)
    same_leader = x.and_(le == old_le, old_leader != b)
    if then == "RemainFollower":
        x.require(leader != NIL, same_leader)
        return
    if then == "BecomeFollowerInNewEpoch":
        x.require(leader != NIL, x.not_(same_leader))
        x.put(b, "role", FOLLOWER)
        x.put(b, "fetch_from", leader)
    else:  # WaitForLeaderChange
        x.require(leader == NIL)
        x.put(b, "role", NO_ROLE)
        x.put(b, "fetch_from", NIL)
    x.put(b, "epoch_start", NIL)
    renounce(x, b, isr, leader)


def delete_partition(x: Ops, b: int, isr: Any, leader: Any) -> None:
    """``DeletePartition``: the replica learns it was removed from the replica set: pending writes
    fail (as on losing leadership), its metadata is blank, its fetcher and log are dropped."""
    for name in ("md_replicas", "md_isr", "md_maximal_isr"):
        x.put(b, name, x.no_brokers())
    x.put(b, "md_leader", NIL)
    x.put(b, "md_leader_epoch", 0)
    x.put(b, "md_partition_epoch", 0)
    x.put(b, "role", NO_ROLE)
    x.put(b, "fetch_from", NIL)
    x.put(b, "epoch_start", NIL)
    renounce(x, b, isr, leader)
    x.clear_log(b)
    x.put(b, "hw", 0)


# -- AlterPartition (KIP-497 maximal ISR, KIP-903 broker epochs) -------------------------------------------

def _timeouts(c: Any, b: int) -> tuple[int, ...]:
    """The sets of followers leader b may time out, as masks, in increasing order (none without
    ``leader_shrinks``)."""
    return tuple(m for m in range(1 << c.brokers) if not m >> b & 1) if c.leader_shrinks else (0,)


@step("SendAlterPartitionRequest", "send_alter_partition_request", cases={"timed_out": _timeouts}, enabled=leading)
def send_alter_partition_request(x: Ops, b: int) -> None:
    """``SendAlterPartitionRequest``: propose the ISR (the replica set's members not timed out, plus
    followers caught up to the HW and the epoch start in this leader epoch) and count the maximal
    ISR meanwhile. Members time out only while ``leader_shrinks`` are left (3.5's spec: then a
    non-empty set of them); KAFKA-19996's fix: under min ISR the HW is frozen (KIP-966), so reaching
    it says nothing: the leader's log end is required instead."""
    x.require(x.get(b, "status") == RUNNING, x.ap_phase(b) == 0, x.get(b, "role") == LEADER)
    isr, hw, start = x.get(b, "md_isr"), x.get(b, "hw"), x.get(b, "epoch_start")
    shrinks_left = x.let(x.glob("leader_shrinks") < x.config.leader_shrinks)
    catch_up = hw
    if x.config.expand_at_leo_under_min_isr:
        end = x.log_end(b)
        catch_up = x.let(x.ite(x.and_(x.not_(x.at_least(isr, x.config.min_isr)), end > hw), end, hw))
    brokers = range(x.n)
    for timed_out in x.cases("timed_out"):
        if timed_out:
            x.require(shrinks_left, *(x.member(isr, f) for f in brokers if timed_out >> f & 1))
        elif x.config.leader_shrinks and x.gen.isr_floor_one:
            x.require(x.not_(shrinks_left))
        caught_up = [x.and_(x.follower_leo(b, f) != NIL, x.follower_leo(b, f) >= catch_up,
                            x.follower_leo(b, f) >= start) for f in brokers]
        # A member stays unless timed out; a non-member joins if caught up.
        stays = [x.and_(x.not_(x.member(isr, f)), caught_up[f]) if timed_out >> f & 1
                 else x.or_(x.member(isr, f), caught_up[f]) for f in brokers]
        proposed = x.let(x.set_of([True if f == b else x.and_(x.is_replica(b, f), stays[f]) for f in brokers]))
        x.require(x.not_(x.same_set(proposed, isr)))
        # isr_and_epochs: the leader's own epoch, 0 for current members, the epoch seen for added ones.
        epochs = [x.get(b, "broker_epoch") if f == b else x.ite(x.member(proposed, f), x.ite(
            x.member(isr, f), 0, x.follower_epoch(b, f)), 0) for f in brokers]
        x.put_ap_request(b, proposed, epochs)
        x.put(b, "md_maximal_isr", x.union(proposed, isr))
        shrinks = x.glob("leader_shrinks")
        x.gput("leader_shrinks", x.ite(x.loses(isr, proposed), shrinks + 1, shrinks))
        x.emit(A.SendAlterPartitionRequest, b + 1, x.ids(proposed))


@step("ReceiveAlterPartitionResponse", "receive_alter_partition_response",
      cases={"accepted": lambda c, b: (True, False)}, enabled=leading)
def receive_alter_partition_response(x: Ops, b: int) -> None:
    """``ReceiveAlterPartitionResponse``: commit the accepted ISR (and the replica set the response
    carries, CompletePartitionChange), or roll the maximal ISR back. (A response the leader would
    ignore has already left its slot: see ``isrcheck.model.kraft``.)"""
    x.require(x.get(b, "status") == RUNNING, x.get(b, "role") == LEADER)
    for accepted in x.cases("accepted"):
        x.require(x.ap_phase(b) == (AP_ACCEPTED if accepted else AP_REJECTED))
        x.put(b, "alter_partition", 0)
        if accepted:
            isr = maximal = x.ap_proposed(b)
            x.put(b, "md_isr", isr)
            x.put(b, "md_maximal_isr", isr)
            x.put(b, "md_replicas", x.ap_replicas(b))
            x.put(b, "md_partition_epoch", x.get(b, "md_partition_epoch") + 1)
        else:
            isr = x.get(b, "md_isr")
            maximal = isr
            x.put(b, "md_maximal_isr", isr)
        hw_on_partition_change(x, b, isr, maximal)
        x.emit(A.ReceiveAlterPartitionResponse, b + 1, "accepted" if accepted else "rejected")


def _ap_outcomes(c: Any, b: int) -> tuple[str, ...]:
    return (("accepted", "reassigned") if c.reassignments else ("accepted",)) + ("ineligible", "fenced")


@step("ReceiveAlterPartitionRequest", "receive_alter_partition_request", cases={"outcome": _ap_outcomes})
def receive_alter_partition_request(x: Ops, b: int) -> None:
    """``ReceiveAlterPartitionRequest``: accepted from the current leader at the current partition
    epoch and broker epoch if every proposed member is unfenced at the epoch named (KIP-903), else
    rejected (IneligibleReplica; FencedLeaderEpoch from a leader no longer current). An accepted
    request that completes the reassignment in progress makes the replica set the target, the
    removing replicas leave the ISR, in a new leader epoch (the leader moves if it was removed);
    the leader ignores that response (its leader epoch no longer matches) and learns the change
    from the metadata log."""
    x.require(x.ap_phase(b) == AP_REQUEST)
    proposed = x.ap_proposed(b)
    current = x.let(x.and_(x.controller("leader") == b, x.get(b, "broker_epoch") == x.get(b, "c_broker_epoch"),
                           x.get(b, "md_partition_epoch") == x.controller("partition_epoch")))
    eligible = x.let(x.and_(current, *(x.or_(x.not_(x.member(proposed, f)), x.and_(
        x.get(f, "c_unfenced"), x.one_of(x.ap_epoch(b, f), (0, x.get(f, "c_broker_epoch"))))) for f in range(x.n))))
    completes = x.let(x.completes_reassignment(b)) if x.config.reassignments else False
    for outcome in x.cases("outcome"):
        if outcome == "accepted":
            x.require(eligible, x.not_(completes))
            alter_partition(x, b, proposed)
            x.put_ap_phase(b, AP_ACCEPTED)
            x.emit(A.ReceiveAlterPartitionRequest, b + 1, x.ids(proposed), "accepted")
        elif outcome == "reassigned":
            x.require(eligible, completes)
            x.put_ap_phase(b, AP_ACCEPTED_NEW_EPOCH)
            for leader in x.reassignment_completions(b):
                x.emit(A.ReceiveAlterPartitionRequest, b + 1, x.ids(proposed), "accepted, reassigned", leader)
        else:
            x.require(x.not_(eligible), current if outcome == "ineligible" else x.not_(current))
            x.put_ap_phase(b, AP_REJECTED)
            x.emit(A.ReceiveAlterPartitionRequest, b + 1, x.ids(proposed),
                   "IneligibleReplica" if outcome == "ineligible" else "FencedLeaderEpoch")


# -- replication ---------------------------------------------------------------------------------------

def _leaders(c: Any, f: int) -> tuple[int, ...]:
    return tuple(ld for ld in range(c.brokers) if ld != f)


@step("Fetch", "fetch", cases={"leader": _leaders, "diverging": lambda c, f: (True, False)}, enabled=running)
def fetch(x: Ops, f: int) -> None:
    """A follower's fetch, request and response in one step: a diverging epoch (the follower
    truncates) or the next record (the leader records the follower's offset and broker epoch and
    may advance its HW; the follower takes the HW it answers). An error response (the leader is
    not leader, or at another leader epoch) changes nothing, so it is not a step here."""
    x.require(x.get(f, "status") == RUNNING)
    for ld in x.cases("leader"):
        x.require(x.get(f, "fetch_from") == ld, x.get(ld, "status") == RUNNING, x.get(ld, "role") == LEADER,
                  x.get(ld, "md_leader_epoch") == x.get(f, "md_leader_epoch"))
        end = x.let(x.log_end(f))
        epoch = x.let(x.last_fetched_epoch(f))
        d_epoch, d_end = x.last_offset_for_epoch(ld, epoch, True)
        diverges = x.let(x.or_(d_epoch < epoch, d_end < end))
        for diverging in x.cases("diverging"):
            if diverging:
                x.require(diverges)
                cut = x.let(truncation_point(x, x.last_offset_for_epoch(f, d_epoch, False), (d_epoch, d_end)))
                x.truncate_log(f, cut)
                x.emit(A.Fetch, f + 1, ld + 1, end, "diverging", cut)
                continue
            x.require(x.not_(diverges))
            x.record_follower(ld, f, end, x.get(f, "broker_epoch"))
            hw = advance_hw(x, ld, x.log_end(ld), known=True)
            x.copy_next_record(f, ld, end)
            x.put(f, "hw", x.ite(hw <= x.next_log_end(f), hw, x.get(f, "hw")))  # a follower's HW is not monotone
            x.emit(A.Fetch, f + 1, ld + 1, end, "ok")


@step("WriteRecordToLeader", "write_record_to_leader", cases={"value": lambda c, b: range(c.values)},
      enabled=leading)
def write_record_to_leader(x: Ops, b: int) -> None:
    """``WriteRecordToLeader``: an acks=all produce of a value not sent yet, accepted while the
    maximal ISR has MinISR members; the HW may advance at once (only with min ISR 1: the value is
    not yet sent, so not acknowledged)."""
    x.require(x.get(b, "status") == RUNNING, x.get(b, "role") == LEADER,
              x.at_least(x.get(b, "md_maximal_isr"), x.config.min_isr))
    for v in x.cases("value"):
        x.require(x.not_(x.value_sent(v)))
        end = x.let(x.log_end(b))
        x.append_record(b, x.get(b, "md_leader_epoch"), v)
        advance_hw(x, b, end + 1)
        x.mark_sent(v)
        floor = x.get(b, "write_floor")
        x.put(b, "write_floor", x.ite(floor == x.no_floor, end, floor))
        x.emit(A.WriteRecordToLeader, b + 1, VALUES[v], end)
