"""Each classic step of ``KafkaReplication.tla`` and its generations, written once: its guards, its
loops over replicas and LeaderAndIsr requests (in the explicit order), its updates and the action
it emits. Every back end reads these functions:

- ``isrcheck.model.steps.staging`` runs them with staged values and gets the Python successor
  function as straight-line source (replica loops unrolled, build-time rules and options folded);
- ``isrcheck.model.native.cwriter`` runs them the same way and gets the C successor function
  (replica loops kept as loops), compiled once per source (``isrcheck.model.native.compiled``);
- ``isrcheck.model.symbolic.derived`` runs them on z3 terms (or concrete values) and gets the
  symbolic relation of ``bmc`` and ``prove``, one ``SymStep`` per choice of the replicas ``who``.

A step is a function of one argument ``x``, the back end's operations (``Ops`` below names them).
It may branch in Python only on build-time values: the generation's rules (``x.gen``), the
options (``x.opt``) and bounds (``x.log_size``...; ``None`` when unbounded). Everything read from
the state is a value of the back end, combined with ``x.and_``, ``x.or_``, ``x.not_``, ``x.ite``
and Python's comparison and arithmetic operators. Each choice of the replicas and cases named in
``who`` (and of a request's epoch) emits at most one successor.

The steps the options add are written the same way, in ``isrcheck.model.steps.failures`` and
``consumers`` (registered with ``option_step`` in ``OPTION_STEPS``; their order is
``option_step_names``), and read by the same back ends but the C one (their fields keep C out).

What each classic step models is in the docstrings of ``isrcheck.model.steps.controller``,
``leader`` and ``follower``. A user's variant may replace a step by one of its own (``step_form`` in
``isrcheck.model.variants``), written against the same operations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol


class Ops(Protocol):
    """What a step may call (every back end implements it; see the module docstring).

    Control: ``replicas(name)`` (each replica, in order), ``replica_named(name, v)`` (the replica
    ``v`` names, if any), ``requests(name)`` (each LeaderAndIsr request naming a leader, by epoch:
    ``(epoch, leader, isr)``), ``cases(name, values)`` (each build-time value, in order; z3: the
    instance's), ``offsets(name, hi)`` (each offset below ``hi``: a case per offset of the log
    under the bounds; without them, in z3's unbounded reading, a choice in ``[0, hi)``),
    ``require(*conds)``, ``let(v)`` (computed once). Logic: ``and_``, ``or_``,
    ``not_``, ``ite``, ``min``, ``every(fn)`` (over the replicas). The state: ``hw(r)``, ``ep(r)``,
    ``ld(r)``, ``isr(r)``, ``running(r)``, ``log_end(r)``, ``last_epoch(r)``, ``rec_epoch(r, k)``,
    ``rec_id(r, k)``, ``caught_up(rule, lead, f, end)``, ``truncation_offset(rule, lead, r)``, the
    options' fields ``flushed(r)`` and ``served(off)``, and the attributes below (``stopped``, a
    replica set, ``crashes`` and ``az_failures`` with the options that add them). Replica sets:
    ``has``, ``with_``, ``without``, ``only``, ``single``, ``subset``, ``empty``, ``at_least``,
    ``set_ite``. The next state: ``put(field, r, v)`` (``hw``, ``ep``, ``ld``, ``isr``,
    ``flushed`` of replica r; ``served`` at offset r; ``ql``, ``qisr``, ``nrid``, ``stopped``,
    ``crashes``, ``az_failures`` with r None), ``send_request(leader, isr, when=True)``,
    ``append(r, rid, epoch)``, ``copy_next(f, lead)``, ``truncate(r, off)``, ``ack(rid, when)``,
    then ``emit(*action_indices, acts=None)`` (``acts``: another action table than the step's).
    """

    n: int
    served_conflict: int  # the served ghost's conflict mark (isrcheck.model.encoding.fields.served_conflict)
    gen: Any  # isrcheck.model.generations.Generation
    opt: Any  # StepOptions
    log_size: int | None
    max_records: int | None
    max_leader_epoch: int | None
    ql: Any
    qisr: Any
    nrid: Any
    nreq: Any
    stopped: Any
    crashes: Any
    az_failures: Any


@dataclass(frozen=True)
class StepOptions:
    """The options the steps read: the first three change how a classic step behaves, the rest
    choose and shape the steps the options add (``OPTION_STEPS``)."""

    acks: str = "none"  # "1": acknowledged on the leader's append; "all": on the HW passing it
    min_isr: int = 1
    expand_before_epoch_start: bool = False  # bug K6: LeaderExpandIsr does not wait for the HW
    max_crashes: int = 0
    stop_kinds: tuple[str, ...] = ()  # of "controlled", "crash", "lossy", in that order
    unclean: str = "off"  # "any", "highest-last-epoch"
    kip966: bool = False  # KIP-966's rule for a broker back from an unclean shutdown
    consumer_reads: str = "off"  # "leader", "any" (KIP-392 follower fetching)
    max_az_failures: int = 0
    az_of: tuple[int, ...] = ()  # each replica's availability zone

    @property
    def stops(self) -> bool:
        """Brokers may stop (the ``dead`` field): broker stops or zone failures."""
        return bool(self.max_crashes or self.max_az_failures)

    @property
    def zones(self) -> tuple[int, ...]:
        """The availability zones a replica is in, in order (``AvailabilityZoneFailure``'s cases)."""
        return tuple(sorted(set(self.az_of)))

    @property
    def flushes(self) -> bool:
        """Replicas have a recovery point (the ``flushed`` field): lossy stops or zone failures."""
        return "lossy" in self.stop_kinds or bool(self.max_az_failures)


STOP_KINDS = ("controlled", "crash", "lossy")


def step_options(options: Any, consumers: Any = None, az_of: tuple[int, ...] = ()) -> StepOptions:
    """The ``StepOptions`` of a model's ``DurabilityOptions`` and ``ConsumerOptions``."""
    kinds = tuple(k for k in STOP_KINDS if k in options.crash_kinds)
    reads, azs = ("off", 0) if consumers is None else (consumers.consumer_reads, consumers.max_az_failures)
    return StepOptions(options.acks, options.min_insync_replicas, options.expand_before_epoch_start,
                       options.max_crashes, kinds, options.unclean_election, options.kip966_unclean_recovery,
                       reads, azs, tuple(az_of) if azs else ())


def option_step_names(opt: StepOptions) -> list[str]:
    """The steps the options add after the generation's ``Next``, in order (the order of their
    successors)."""
    names = []
    if opt.max_crashes:
        names += ["BrokerStop", "BrokerRestart"]
        if opt.flushes:
            names.append("FlushLog")
        if opt.unclean != "off":
            names.append("UncleanLeaderElection")
    if opt.max_az_failures:
        names.append("AvailabilityZoneFailure")
        if not opt.max_crashes:  # the stop options did not add restarts and flushes
            names += ["BrokerRestart", "FlushLog"]
        # with stops too, FlushLog is already listed (``flushes`` holds with zones): listing it again
        # made every flush successor twice (same states, so same counts and traces, double the work)
    if opt.consumer_reads != "off":
        names.append("ConsumerFetch")
    return names


@dataclass(frozen=True)
class Described:
    """A step: its TLA+ action name, the replicas that name one instance of it (z3 unrolls them),
    the action table its successors are labelled from, and the description itself. ``cases``: the
    names in ``who`` that are not replicas but build-time choices (``x.cases``), each with the
    ``StepOptions`` attribute that lists its values. ``nested``: the choices (``x.replicas``,
    ``x.cases``) made further in, only on some paths (the new leader of a controlled shutdown);
    z3 finds which paths make them and makes one instance per value where they do."""

    name: str
    who: tuple[str, ...]
    acts: str
    fn: Callable[[Any], None]
    cases: tuple[tuple[str, str], ...] = ()
    nested: tuple[str, ...] = ()


# The built-in steps, by TLA+ action, in the one order of every generation's Next (``NEXT_ORDER``):
# the order of their sections in the successor functions, so of the successors.
STEPS: dict[str, Described] = {}
FORMS: dict[str, Described] = {}  # forms of a step registered by a user's variant, by the form's name
# The steps the options add (``isrcheck.model.steps.failures``, ``consumers``), by TLA+ action; they
# run after the generation's Next, in the order of ``option_step_names``.
OPTION_STEPS: dict[str, Described] = {}


def step(name: str, who: tuple[str, ...], acts: str) -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    def register(fn: Callable[[Any], None]) -> Callable[[Any], None]:
        STEPS[name] = Described(name, who, acts, fn)
        return fn

    return register


def option_step(name: str, who: tuple[str, ...], acts: str, cases: tuple[tuple[str, str], ...] = (),
                nested: tuple[str, ...] = ()) -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    """Registers the description of a step an option adds (see ``Described``)."""
    def register(fn: Callable[[Any], None]) -> Callable[[Any], None]:
        OPTION_STEPS[name] = Described(name, who, acts, fn, cases, nested)
        return fn

    return register


def action_tables() -> tuple[str, ...]:
    """The action tables (``isrcheck.model.actions.ActionTable`` attributes) the steps emit, each once,
    in step order: how the C kernel is handed them."""
    return tuple(dict.fromkeys(d.acts for d in STEPS.values()))


def described(gen: Any, name: str) -> Described:
    """The description of step ``name`` in generation ``gen``: a form of the generation's own
    (``Generation.forms``) or the built-in one."""
    for form in gen.forms:
        d = FORMS[form]
        if d.name == name:
            return d
    return STEPS[name]


# -- predicates several steps share ------------------------------------------------------------------

def same_epoch(x: Ops, f: Any, lead: Any) -> Any:
    """KIP-320's fencing (``fenced``): f is at the leader's epoch; always, without fencing."""
    return x.ep(f) == x.ep(lead) if x.gen.fenced else True


def counts(x: Ops, lead: Any, f: Any, end: Any, rule: str) -> Any:
    """``IsFollowerCaughtUp(lead, f, end)``: f follows lead (at its epoch, fenced) and the rule
    counts its log as holding the leader's first ``end`` offsets."""
    return x.and_(x.ld(f) == lead, same_epoch(x, f, lead), x.caught_up(rule, lead, f, end))


def epoch_left(x: Ops) -> Any:
    """The controller may still bump the leader epoch (``MaxLeaderEpoch``)."""
    return True if x.max_leader_epoch is None else x.nreq <= x.max_leader_epoch


def fetch_answered(x: Ops, f: int) -> Iterator[Any]:
    """Running follower f fetches from the leader it presumes, which presumes leadership (at f's
    epoch, fenced): that leader, if there is one."""
    for lead in x.replica_named("lead", x.ld(f)):
        x.require(lead != f, x.running(f), x.ld(lead) == lead, same_epoch(x, lead, f))
        yield lead


def diverges(x: Ops, f: Any, lead: Any) -> Any:
    """``FollowerNeedsTruncation``: f's log is longer than the leader's, or its last record's
    epoch differs from the leader's at that offset."""
    k, lk = x.log_end(f), x.log_end(lead)
    return x.or_(k > lk, x.and_(0 < k, k <= lk, x.rec_epoch(lead, k - 1) != x.rec_epoch(f, k - 1)))


def adopt(x: Ops, r: Any, epoch: Any, lead: Any, isr: Any) -> None:
    """Replica r takes the request's epoch, leader and ISR."""
    x.put("ep", r, epoch)
    x.put("ld", r, lead)
    x.put("isr", r, isr)


# -- the controller and LeaderAndIsr requests -----------------------------------------------------------

@step("ControllerElectLeader", ("lead",), "elect")
def controller_elect_leader(x: Ops) -> None:
    x.require(epoch_left(x))
    for lead in x.replicas("lead"):
        x.require(x.has(x.qisr, lead), x.ql != lead, x.running(lead))
        x.put("ql", None, lead)
        x.send_request(lead, x.qisr)
        x.emit(lead, x.nreq)


@step("ControllerShrinkIsr", ("r",), "controller_shrink")
def controller_shrink_isr(x: Ops) -> None:
    x.require(epoch_left(x))
    for r in x.replicas("r"):
        was_leader = x.ql == r
        x.require(x.or_(was_leader, x.has(x.qisr, r)))
        # The leader fails: leaderless; it stays in the ISR only if it is the sole member.
        isr = x.let(x.set_ite(x.and_(was_leader, x.only(x.qisr, r)), x.qisr, x.without(x.qisr, r)))
        lead = x.let(x.ite(was_leader, -1, x.ql))
        x.put("ql", None, lead)
        x.put("qisr", None, isr)
        x.send_request(lead, isr)
        x.emit(r, x.nreq)


@step("BecomeLeader", ("lead",), "become_leader")
def become_leader(x: Ops) -> None:
    for epoch, lead, isr in x.requests("lead"):
        x.require(epoch > x.ep(lead), x.running(lead))
        adopt(x, lead, epoch, lead, isr)
        x.emit(lead, epoch)


# -- ISR changes and the high watermark by the leader ---------------------------------------------------

def true_leader(x: Ops) -> Iterator[Any]:
    """``IsTrueLeader``: the quorum's leader, presuming leadership at the quorum's epoch, running."""
    for lead in x.replica_named("lead", x.ql):
        x.require(x.ld(lead) == lead, x.ep(lead) == x.nreq - 1, x.running(lead))
        yield lead


@step("LeaderExpandIsr", ("lead", "r"), "expand")
def leader_expand_isr(x: Ops) -> None:
    """The generation's ISR rule; KIP-320 and its first try wait for the HW to reach the leader's
    epoch (``expand_waits_for_epoch_start``; off with the K6 option)."""
    for lead in true_leader(x):
        isr, hw = x.isr(lead), x.hw(lead)
        if x.gen.expand_waits_for_epoch_start and not x.opt.expand_before_epoch_start:
            end = x.let(x.log_end(lead))  # HasHighWatermarkReachedCurrentEpoch
            x.require(x.or_(hw == end, x.and_(hw < end, x.rec_epoch(lead, hw) == x.ep(lead))))
        for r in x.replicas("r"):
            x.require(x.not_(x.has(isr, r)), counts(x, lead, r, hw, x.gen.isr_rule))
            x.put("isr", lead, x.with_(isr, r))  # QuorumUpdateLeaderAndIsr: the cached and the quorum ISR
            x.put("qisr", None, x.with_(isr, r))
            x.emit(lead, r)


@step("LeaderShrinkIsr", ("lead", "r"), "shrink")
def leader_shrink_isr(x: Ops) -> None:
    for lead in true_leader(x):
        isr, end = x.isr(lead), x.let(x.log_end(lead))
        for r in x.replicas("r"):
            x.require(r != lead, x.has(isr, r), x.not_(counts(x, lead, r, end, x.gen.isr_rule)))
            x.put("isr", lead, x.without(isr, r))
            x.put("qisr", None, x.without(isr, r))
            x.emit(lead, r)


@step("LeaderWrite", ("lead",), "write")
def leader_write(x: Ops) -> None:
    x.require(True if x.max_records is None else x.nrid < x.max_records)
    for lead in x.replicas("lead"):
        x.require(x.ld(lead) == lead, x.running(lead))
        k = x.let(x.log_end(lead))
        x.require(True if x.log_size is None else k < x.log_size)
        if x.opt.acks == "all":  # NotEnoughReplicasException: the produce request is refused
            x.require(x.at_least(x.isr(lead), x.opt.min_isr))
        epoch = x.ep(lead)
        x.append(lead, x.nrid, epoch)
        x.put("nrid", None, x.nrid + 1)
        if x.opt.acks == "1":  # acknowledged on the leader's append
            x.ack(x.nrid)
        x.emit(lead, x.nrid, epoch, k)


@step("LeaderIncHighWatermark", ("lead",), "inc_hw")
def leader_inc_high_watermark(x: Ops) -> None:
    """Bounded by ``LogSize`` or the leader's log end (``hw_bound``); with
    ``hw_vacuous_with_empty_isr`` the leadership test sits inside the quantifier over the cached
    ISR, as ``Kip320.tla`` writes it (an empty cached ISR makes it vacuous)."""
    gen = x.gen
    for lead in x.replicas("lead"):
        hw, isr = x.hw(lead), x.isr(lead)
        presumes = x.ld(lead) == lead
        if gen.hw_bound == "log-size":
            x.require(True if x.log_size is None else hw < x.log_size)
        else:
            x.require(hw < x.log_end(lead))
        x.require(x.running(lead))
        if gen.hw_vacuous_with_empty_isr:
            x.require(x.or_(presumes, x.empty(isr)))
        else:
            x.require(presumes)
        # Every member of the cached ISR is caught up to hw + 1 (IsFollowerCaughtUp).
        x.require(x.every(lambda f, isr=isr, lead=lead, hw=hw:
                          x.or_(x.not_(x.has(isr, f)), counts(x, lead, f, hw + 1, gen.hw_rule))))
        x.put("hw", lead, hw + 1)
        if x.opt.acks == "all":  # the record the HW passes, with enough ISR members
            x.ack(x.rec_id(lead, hw), when=x.and_(presumes, x.at_least(isr, x.opt.min_isr)))
        x.emit(lead, hw + 1)


# -- followers ------------------------------------------------------------------------------------------

@step("BecomeFollowerAndTruncateTo", ("r", "lead"), "follow_truncate")
def become_follower_and_truncate_to(x: Ops) -> None:
    """Truncation by the generation's rule (``truncate_to``); fenced: the named leader must
    already lead at the request's epoch."""
    for epoch, lead, isr in x.requests("lead"):
        if x.gen.fenced:
            x.require(x.ld(lead) == lead, x.ep(lead) == epoch)
        for r in x.replicas("r"):
            x.require(r != lead, epoch > x.ep(r), x.running(r))
            off = x.let(x.truncation_offset(x.gen.truncate_to, lead, r))
            x.require(off <= x.log_end(r))  # TruncateTo(replica, off) requires off <= end offset
            x.truncate(r, off)
            adopt(x, r, epoch, lead, isr)
            x.emit(r, lead, epoch, off)


@step("BecomeFollower", ("r", "lead"), "follow")
def become_follower(x: Ops) -> None:
    """Adopt the request without truncating (the follower truncates on a fetch)."""
    for epoch, lead, isr in x.requests("lead"):
        for r in x.replicas("r"):
            x.require(r != lead, epoch > x.ep(r), x.running(r))
            adopt(x, r, epoch, lead, isr)
            x.emit(r, lead, epoch)


@step("FollowerReplicate", ("f", "lead"), "replicate")
def follower_replicate(x: Ops) -> None:
    """A fetch appends the leader's next record; with ``fetch_matches_last_epoch`` only while the
    follower's log does not diverge."""
    for f in x.replicas("f"):
        for lead in fetch_answered(x, f):
            k = x.let(x.log_end(f))
            x.require(k < x.log_end(lead))
            if x.gen.fetch_matches_last_epoch:
                x.require(x.not_(diverges(x, f, lead)))  # diverging: the follower must truncate first
            x.copy_next(f, lead)
            x.put("hw", f, x.min(x.hw(lead), k + 1))
            x.emit(f, lead, k)


@step("FollowerTruncate", ("f", "lead"), "follower_truncate")
def follower_truncate(x: Ops) -> None:
    """A diverging fetch: truncate to the last offset holding the leader's record (KIP-279's offset)."""
    for f in x.replicas("f"):
        for lead in fetch_answered(x, f):
            x.require(diverges(x, f, lead))
            off = x.let(x.truncation_offset("kip279", lead, f))
            x.truncate(f, off)
            x.emit(f, lead, off)


@step("FollowerUpdateHighWatermark", ("f", "lead"), "update_hw")
def follower_update_high_watermark(x: Ops) -> None:
    """Bug K13: a diverging response's HW applied before truncating, capped at the log end
    (``UnifiedLog.updateHighWatermark``)."""
    for f in x.replicas("f"):
        for lead in fetch_answered(x, f):
            x.require(diverges(x, f, lead))
            hw = x.let(x.min(x.hw(lead), x.log_end(f)))
            x.require(hw != x.hw(f))
            x.put("hw", f, hw)
            x.emit(f, lead, hw)
