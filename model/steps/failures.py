"""Steps the failure options add: brokers that stop and come back, log flushes, unclean election,
availability-zone power failures.

Each is written once, as the classic steps are (``isrcheck.model.steps.described``: guards, updates
and the action, against the step operations), and read by the same back ends: the generated Python
successor function (``isrcheck.model.steps.staging``) and the z3 relation
(``isrcheck.model.symbolic.derived``). Each cites the Kafka mechanism it models.

What a stop does to the replica, in every kind: the broker
no longer presumes leadership of anything (its cached leader becomes None: it serves no produce or
fetch request), keeps its cached epoch and ISR, and the controller reacts in the same step as it
does in ``ControllerShrinkIsr`` (ZooKeeper session expiry / missed KRaft heartbeats, or the
controlled shutdown request): a bumped leader epoch and a new LeaderAndIsr request. A broker outside
the ISR stops without a request. A stop that would need a request once ``max_leader_epoch`` is used
up is not explored (the bound, as for every controller step).

Abstracted away: the time a failure takes to detect (detection is part of the stop), the HW
checkpoint file (a restarted broker keeps its in-memory HW, capped at its log end), segment recovery
beyond truncation to the recovery point, broker epochs and fencing of a restarted broker's stale
requests (a restarted broker re-reads only the controller's current request or later ones).
"""

from __future__ import annotations

from typing import Any

from .described import epoch_left, option_step


def _leaves(x: Any, r: Any, sole_stays: bool) -> tuple[Any, Any, Any]:
    """How the controller takes failed broker ``r`` out of the partition (``ControllerShrinkIsr``'s
    rule, so the classic invariants keep their meaning): (whether it acts, the quorum's new leader,
    its new ISR). It acts when r is the leader or an ISR member, with a bumped epoch (so only while
    ``max_leader_epoch`` allows); a leader that was the sole ISR member stays in it if
    ``sole_stays`` (the ZooKeeper controller never empties an ISR)."""
    was_leader = x.ql == r
    involved = x.let(x.or_(was_leader, x.has(x.qisr, r)))
    x.require(x.or_(x.not_(involved), epoch_left(x)))
    isr = x.without(x.qisr, r)
    if sole_stays:
        isr = x.set_ite(x.and_(was_leader, x.only(x.qisr, r)), x.qisr, isr)
    return involved, x.let(x.ite(was_leader, -1, x.ql)), x.let(isr)


def _stopped(x: Any, r: Any) -> None:
    """What every stop does to broker r: it leads nothing (cached leader None; epoch and ISR cache
    kept), it is stopped, and one more stop happened."""
    x.put("ld", r, -1)
    x.put("stopped", None, x.with_(x.stopped, r))
    x.put("crashes", None, x.crashes + 1)


@option_step("BrokerStop", ("kind", "r"), "crash", cases=(("kind", "stop_kinds"),), nested=("removal", "c"))
def broker_stop(x: Any) -> None:
    """``ControlledShutdown``, ``BrokerCrash`` and its lossy form, for every running broker while
    fewer than ``max_crashes`` stops have happened (per broker, in that order)."""
    kinds = x.opt.stop_kinds
    x.require(x.crashes < x.opt.max_crashes)
    for r in x.replicas("r"):
        x.require(x.running(r))
        if "crash" in kinds or "lossy" in kinds:
            # One removal for both kinds (one request value, shared by their successors). KIP-966: a
            # broker back from an unclean shutdown is not eligible: it leaves the ISR even as its
            # last member (the partition goes offline).
            involved, lead, isr = _leaves(x, r, sole_stays=not x.opt.kip966 or "crash" in kinds)
            requests = x.let(x.request(lead, isr, when=involved))
            epoch = x.let(x.ite(involved, x.nreq + 1, 0))
        for kind in x.cases("kind", kinds):
            if kind == "controlled":
                controlled_shutdown(x, r)
                continue
            if kind == "lossy":
                # Power failure: log recovery truncates to the recovery point (the flushed prefix);
                # beside plain crashes, only when something is unflushed (else it is a crash).
                keep = x.flushed(r)
                if "crash" in kinds:
                    x.require(keep < x.log_end(r))
                if x.opt.kip966 and "crash" in kinds:
                    _, lead, isr = _leaves(x, r, sole_stays=False)
                    requests = x.let(x.request(lead, isr, when=involved))
                x.truncate(r, keep)
            # Crash (kill -9, lost session): the page cache survives, so does the whole log.
            x.put("ql", None, lead)
            x.put("qisr", None, isr)
            x.put("requests", None, requests)
            _stopped(x, r)
            if kind == "lossy":
                x.emit(r, epoch, keep, acts="lossy")
            else:
                x.emit(r, epoch)


def controlled_shutdown(x: Any, r: Any) -> None:
    """``ControlledShutdown``: the controller moves leadership to a running ISR member first (a
    controlled shutdown of the last running ISR member is refused, as Kafka's
    ``ControlledShutdownLeaderSelector`` refuses it) and the broker always leaves the ISR; it
    flushes its log on the way down (recovery point = log end). Not involved: no request."""
    was_leader = x.ql == r
    for case in x.cases("removal", ("none", "leader", "member")):
        if case == "none":
            x.require(x.not_(was_leader), x.not_(x.has(x.qisr, r)))
            lead, epoch = -1, 0
        else:
            x.require(epoch_left(x))
            isr = x.without(x.qisr, r)
            if case == "member":
                x.require(x.not_(was_leader), x.has(x.qisr, r), x.not_(x.only(x.qisr, r)))
                lead = x.ql
            else:
                x.require(was_leader)
        for c in x.replicas("c") if case == "leader" else (None,):
            if case == "leader":
                x.require(c != r, x.has(isr, c), x.running(c))
                lead = c
            if case != "none":
                x.put("ql", None, lead)
                x.put("qisr", None, isr)
                x.send_request(lead, isr)
                epoch = x.nreq + 1
            if x.opt.flushes:
                x.put("flushed", r, x.log_end(r))
            _stopped(x, r)
            x.emit(r, lead + 1, epoch, acts="controlled")


@option_step("BrokerRestart", ("r",), "restart")
def broker_restart(x: Any) -> None:
    """``BrokerRestart``: a stopped broker comes back with its on-disk log. The controller sends a
    starting broker the partition's current LeaderAndIsr (``KafkaController.onBrokerStartup``; KRaft:
    the broker replays the metadata log): the replica's epoch is set just below the current one, so
    that it adopts the current request (or a later one, never an older one: requests in flight to
    it died with its connections) through the generation's own ``BecomeLeader`` /
    ``BecomeFollower...`` step, truncating as that generation truncates."""
    for r in x.replicas("r"):
        x.require(x.has(x.stopped, r))
        x.put("ep", r, x.ite(x.nreq >= 1, x.nreq - 2, x.ep(r)))
        x.put("stopped", None, x.without(x.stopped, r))
        x.emit(r)


@option_step("FlushLog", ("r",), "flush")
def flush_log(x: Any) -> None:
    """``FlushLog``: a running replica fsyncs its log to its end offset (Kafka flushes on
    ``log.flush.interval.*``, segment roll and when the recovery point is checkpointed; any moment
    is possible). Truncation lowers the flushed offset with the log (``x.truncate``)."""
    for r in x.replicas("r"):
        x.require(x.running(r))
        k = x.let(x.log_end(r))
        x.require(x.flushed(r) < k)
        x.put("flushed", r, k)
        x.emit(r, k)


@option_step("UncleanLeaderElection", ("r",), "unclean")
def unclean_leader_election(x: Any) -> None:
    """``UncleanLeaderElection``: with ``unclean.leader.election.enable=true`` and no live ISR
    member, the controller elects a live replica outside the ISR, ISR = {it}, bumping the epoch
    (``OfflinePartitionLeaderElectionStrategy`` with unclean allowed). Rule "any": any live replica
    (Kafka takes the first live one in assignment order; every order is explored). Rule
    "highest-last-epoch": ocadaruma/kafka-spec ``UncleanLeaderElection3``: among live replicas, those
    whose last record has the highest leader epoch, then the longest logs among them."""
    x.require(x.ql == -1, x.subset(x.qisr, x.stopped))
    if not x.opt.kip966:
        # An ISR that is empty without KIP-966's rule is a quirk of the spec's ControllerShrinkIsr
        # (Kafka's controller never empties it), not "every ISR member is down".
        x.require(x.not_(x.empty(x.qisr)))
    x.require(epoch_left(x))
    for r in x.replicas("r"):
        x.require(x.running(r))
        if x.opt.unclean == "highest-last-epoch":
            top, end = x.let(x.last_epoch(r)), x.let(x.log_end(r))
            x.require(x.every(lambda m, top=top, end=end, r=r: True if m == r else x.or_(
                x.not_(x.running(m)), x.and_(x.last_epoch(m) <= top, x.or_(
                    x.last_epoch(m) != top, x.log_end(m) <= end)))))
        x.put("ql", None, r)
        x.put("qisr", None, x.single(r))
        x.send_request(r, x.single(r))
        x.emit(r, x.nreq + 1)


# -- racks -------------------------------------------------------------------------------------------


@option_step("AvailabilityZoneFailure", ("zone",), "az_failure", cases=(("zone", "zones"),),
             nested=("down", "isr", "m"))
def az_failure(x: Any) -> None:
    """``AvailabilityZoneFailure``: every running broker of one zone loses power at once. Each
    keeps its flushed prefix (log recovery truncates to the recovery point), caps its HW there and
    leads nothing; the controller (``KafkaController.onBrokerFailure`` with every dead broker at once)
    removes them from the ISR in one update with a new leader epoch, leaving the partition
    leaderless if the leader was among them. If no ISR member survives, the ISR keeps one of them
    (the ZooKeeper controller never empties an ISR: ``removeReplicasFromIsr`` keeps a sole member;
    which one depends on the order the dead brokers are processed in, so every choice is explored),
    unless KIP-966's rule for unclean shutdowns is on, which
    empties it (the partition goes offline rather than be led by a replica that lost data)."""
    az_of = x.opt.az_of
    x.require(x.az_failures < x.opt.max_az_failures)
    for z in x.cases("zone", x.opt.zones):
        zone = [r for r in range(len(az_of)) if az_of[r] == z]
        # Which of the zone's brokers are still running (and so go down now): each nonempty subset.
        for down in x.cases("down", [d for d in _subsets(zone) if d]):
            for r in zone:
                x.require(x.not_(x.has(x.stopped, r)) if r in down else x.has(x.stopped, r))
            zone_failure(x, z, down)


def _subsets(items: list) -> list[tuple]:
    out: list[tuple] = [()]
    for item in items:
        out += [s + (item,) for s in out]
    return sorted(out)


def zone_failure(x: Any, z: int, down: tuple) -> None:
    """The brokers ``down`` of zone ``z`` fail together (see ``az_failure``)."""
    leader_down = x.let(x.or_(*(x.ql == r for r in down)))
    involved = x.let(x.or_(leader_down, *(x.has(x.qisr, r) for r in down)))
    survivors = x.qisr
    for r in down:
        survivors = x.without(survivors, r)
    survivors = x.let(survivors)
    for case in x.cases("isr", ("untouched", "survivors", "sole")):
        isr = survivors
        if case == "untouched":
            x.require(x.not_(involved))
        else:
            x.require(involved, epoch_left(x))
            if case == "survivors" and not x.opt.kip966:
                x.require(x.not_(x.empty(survivors)))
            elif case == "sole":
                if x.opt.kip966:
                    continue
                x.require(x.empty(survivors))
        for m in x.replicas("m") if case == "sole" else (None,):
            if case == "sole":
                x.require(x.has(x.qisr, m))
                isr = x.single(m)
            if case != "untouched":
                lead = x.let(x.ite(leader_down, -1, x.ql))
                x.put("ql", None, lead)
                x.put("qisr", None, isr)
                x.send_request(lead, isr)
            stopped = x.stopped
            for r in down:
                x.truncate(r, x.flushed(r))
                x.put("ld", r, -1)
                stopped = x.with_(stopped, r)
            x.put("stopped", None, stopped)
            x.put("az_failures", None, x.az_failures + 1)
            epoch = -1 if case == "untouched" else x.nreq
            x.emit(z + 1, tuple(r + 1 for r in down), epoch, tuple(x.flushed(r) for r in down))
