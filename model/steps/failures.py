"""Steps the failure options add: brokers that stop and come back, log flushes, unclean election,
availability-zone power failures.

Each builds whole next states (classic fields plus the option fields of ``isrcheck.model.encoding.fields``)
and cites the Kafka mechanism it models. What a stop does to the replica, in every kind: the broker
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

from ..actions import AvailabilityZoneFailure
from ..encoding.state import EPOCH, HW, LEADER, Q_ISR, Q_LEADER, REQUESTS
from .controller import Step


def _controller_removes(t: Any, controlled: bool):
    """How the controller takes broker ``r`` out of the partition (``ControllerShrinkIsr``'s rule, so
    the classic invariants keep their meaning): returns (epoch or -1, quorum tail) or None when the
    step is not possible. ``controlled``: leadership must move to a live ISR member first (a
    controlled shutdown of the last live ISR member is refused, as Kafka's
    ``ControlledShutdownLeaderSelector`` refuses it) and the broker always leaves the ISR."""
    n = t.layout.n
    g = t.layout.g
    ql_i, qi_i, rq_i = g + Q_LEADER, g + Q_ISR, g + REQUESTS
    bit = t.layout.bit
    members = t.layout.members
    max_epoch = t.config.max_leader_epoch

    def removes(s: tuple, r: int, dead: int) -> list[tuple[int, int, tuple]]:
        ql, qi, reqs = s[ql_i], s[qi_i], s[rq_i]
        epoch = len(reqs)
        if ql != r and not qi & bit[r]:
            return [(-1, -1, s[ql_i:rq_i + 1])]  # not in the ISR: no controller action
        if epoch > max_epoch:
            return []
        if ql == r:
            others = qi & ~bit[r]
            if controlled:
                options = [(c, others) for c in members[others & ~dead]]
            else:
                options = [(-1, qi if qi == bit[r] else others)]
        else:
            if controlled and qi == bit[r]:
                return []
            options = [(ql, qi & ~bit[r])]
        out = []
        for leader, isr in options:
            request = ((leader + 1) << n) | isr
            out.append((epoch, leader, (leader, isr, reqs + (request,))))
        return out

    return removes


def broker_stops(t: Any) -> Step:
    """``ControlledShutdown``, ``BrokerCrash`` and its lossy form, for every live broker while
    fewer than ``max_crashes`` stops have happened."""
    options = t.options
    kinds = options.crash_kinds
    kip966 = options.kip966_unclean_recovery
    g = t.layout.g
    ql_i, rq_i = g + Q_LEADER, g + REQUESTS
    dead_i, crashes_i, flushed_i = t.fields.dead, t.fields.crashes, t.fields.flushed
    max_crashes = options.max_crashes
    base = t.layout.base
    bit = t.layout.bit
    n = t.layout.n
    length = t.logs.length
    pow_ = t.logs.pow
    acts = t.actions
    controlled = _controller_removes(t, controlled=True)
    failed = _controller_removes(t, controlled=False)
    start = t.fields.start

    def with_replica(s: tuple, b: int, log: int, hw: int) -> tuple:
        # The stopped broker leads nothing: cached leader None; epoch and ISR cache kept.
        return s[:b] + (log, hw, s[b + EPOCH], -1) + s[b + LEADER + 1 : ql_i]

    def step(s: tuple, out: list) -> None:
        crashes = s[crashes_i]
        if crashes >= max_crashes:
            return
        dead = s[dead_i]
        for r in range(n):
            if dead & bit[r]:
                continue
            b = base[r]
            log = s[b]
            hw = s[b + HW]
            k = length[log]
            flushed = s[flushed_i + r] if flushed_i >= 0 else 0
            new_dead = (dead | bit[r], crashes + 1)
            if "controlled" in kinds:
                # Controlled shutdown: leadership moved and ISR shrunk by the controller first; the
                # broker flushes its log on the way down (recovery point = log end).
                for epoch, leader, quorum in controlled(s, r, dead):
                    tail = s[rq_i + 1 : start] + new_dead
                    if flushed_i >= 0:
                        tail += s[start + 2 : flushed_i + r] + (k,) + s[flushed_i + r + 1 :]
                    else:
                        tail += s[start + 2 :]
                    nxt = with_replica(s, b, log, hw) + quorum + tail
                    out.append((acts.controlled[r][leader + 1][epoch + 1], nxt))
            removals = None
            if "crash" in kinds:
                # Crash (kill -9, lost session): the page cache survives, so does the whole log.
                removals = failed(s, r, dead)
                for epoch, _leader, quorum in removals:
                    nxt = with_replica(s, b, log, hw) + quorum + s[rq_i + 1 : start] + new_dead + s[start + 2 :]
                    out.append((acts.crash[r][epoch + 1], nxt))
            if "lossy" in kinds and (flushed < k or "crash" not in kinds):
                # Power failure: log recovery truncates to the recovery point (the flushed prefix).
                if removals is None:
                    removals = failed(s, r, dead)
                new_log = log % pow_[flushed]
                new_hw = hw if hw < flushed else flushed
                for epoch, leader, quorum in removals:
                    if kip966 and epoch >= 0 and quorum[1] == bit[r]:
                        # KIP-966: a broker back from an unclean shutdown is not eligible: it leaves
                        # the ISR even as its last member (the partition goes offline).
                        quorum = (leader, 0, quorum[2][:-1] + (((leader + 1) << n),))
                    nxt = with_replica(s, b, new_log, new_hw) + quorum + s[rq_i + 1 : start] + new_dead + s[start + 2 :]
                    out.append((acts.lossy[r][epoch + 1][flushed], nxt))

    return step


def broker_restart(t: Any) -> Step:
    """``BrokerRestart``: a stopped broker comes back with its on-disk log. The controller sends a
    starting broker the partition's current LeaderAndIsr (``KafkaController.onBrokerStartup``; KRaft:
    the broker replays the metadata log): the replica's epoch is set just below the current one, so
    that it adopts the current request (or a later one, never an older one: requests in flight to
    it died with its connections) through the generation's own ``BecomeLeader`` /
    ``BecomeFollower...`` step, truncating as that generation truncates."""
    rq_i, dead_i = t.layout.requests_i, t.fields.dead
    base, bit, members = t.layout.base, t.layout.bit, t.layout.members
    acts = t.actions.restart

    def step(s: tuple, out: list) -> None:
        dead = s[dead_i]
        current = len(s[rq_i]) - 1
        for r in members[dead]:  # every stopped broker, in ascending order
            b = base[r]
            # Requests older than the current one died with the broker's connections.
            epoch = current - 1 if current >= 0 else s[b + EPOCH]
            nxt = s[: b + EPOCH] + (epoch,) + s[b + EPOCH + 1 : dead_i] + (dead & ~bit[r],) + s[dead_i + 1 :]
            out.append((acts[r], nxt))

    return step


def flush_log(t: Any) -> Step:
    """``FlushLog``: a live replica fsyncs its log to its end offset (Kafka flushes on
    ``log.flush.interval.*``, segment roll and when the recovery point is checkpointed; any moment
    is possible). Truncation lowers the flushed offset with the log (``isrcheck.model.steps.follower``)."""
    dead_i, flushed_i = t.fields.dead, t.fields.flushed
    base, members, all_mask = t.layout.base, t.layout.members, t.layout.all_mask
    length = t.logs.length
    acts = t.actions.flush

    def step(s: tuple, out: list) -> None:
        for r in members[all_mask & ~s[dead_i]]:  # every running broker
            k = length[s[base[r]]]
            f = flushed_i + r
            if s[f] < k:
                out.append((acts[r][k], s[:f] + (k,) + s[f + 1 :]))

    return step


def unclean_leader_election(t: Any) -> Step:
    """``UncleanLeaderElection``: with ``unclean.leader.election.enable=true`` and no live ISR
    member, the controller elects a live replica outside the ISR, ISR = {it}, bumping the epoch
    (``OfflinePartitionLeaderElectionStrategy`` with unclean allowed). Rule "any": any live replica
    (Kafka takes the first live one in assignment order; every order is explored). Rule
    "highest-last-epoch": ocadaruma/kafka-spec ``UncleanLeaderElection3``: among live replicas, those
    whose last record has the highest leader epoch, then the longest logs among them."""
    n = t.layout.n
    g = t.layout.g
    ql_i, qi_i, rq_i = g + Q_LEADER, g + Q_ISR, g + REQUESTS
    dead_i = t.fields.dead
    base = t.layout.base
    bit = t.layout.bit
    length = t.logs.length
    last_epoch = t.logs.last_epoch
    max_epoch = t.config.max_leader_epoch
    options = t.options
    highest = options.unclean_election == "highest-last-epoch"
    emptied_on_purpose = options.kip966_unclean_recovery
    acts = t.actions.unclean

    def step(s: tuple, out: list) -> None:
        if s[ql_i] >= 0:
            return
        dead = s[dead_i]
        isr = s[qi_i]
        if isr & ~dead or not (isr or emptied_on_purpose):
            # A live ISR member exists: clean election (ControllerElectLeader) applies. An ISR that
            # is empty without KIP-966's rule is a quirk of the spec's ControllerShrinkIsr (Kafka's
            # controller never empties it), not "every ISR member is down".
            return
        reqs = s[rq_i]
        epoch = len(reqs)
        if epoch > max_epoch:
            return
        live = [r for r in range(n) if not dead & bit[r]]
        if highest and live:
            top = max(last_epoch[s[base[r]]] for r in live)
            live = [r for r in live if last_epoch[s[base[r]]] == top]
            longest = max(length[s[base[r]]] for r in live)
            live = [r for r in live if length[s[base[r]]] == longest]
        head = s[:ql_i]
        tail = s[rq_i + 1 :]
        for r in live:
            request = ((r + 1) << n) | bit[r]
            out.append((acts[r][epoch + 1], head + (r, bit[r], reqs + (request,)) + tail))

    return step


# -- racks -------------------------------------------------------------------------------------------


def az_failure(t: Any) -> Step:
    """``AvailabilityZoneFailure``: every running broker of one zone loses power at once. Each
    keeps its flushed prefix (log recovery truncates to the recovery point), caps its HW there and
    leads nothing; the controller (``KafkaController.onBrokerFailure`` with every dead broker at once)
    removes them from the ISR in one update with a new leader epoch, leaving the partition
    leaderless if the leader was among them. If no ISR member survives, the ISR keeps one of them
    (the ZooKeeper controller never empties an ISR: ``removeReplicasFromIsr`` keeps a sole member;
    which one depends on the order the dead brokers are processed in, so every choice is explored),
    unless KIP-966's rule for unclean shutdowns is on, which
    empties it (the partition goes offline rather than be led by a replica that lost data)."""
    az_of, max_failures = t.az_of, t.consumers.max_az_failures
    kip966 = t.options.kip966_unclean_recovery
    n, g = t.layout.n, t.layout.g
    ql_i, qi_i, rq_i = g + Q_LEADER, g + Q_ISR, g + REQUESTS
    dead_i, flushed_i, fail_i = t.fields.dead, t.fields.flushed, t.fields.az_failed
    base, bit, members = t.layout.base, t.layout.bit, t.layout.members
    pow_ = t.logs.pow
    max_epoch = t.config.max_leader_epoch
    zones = sorted(set(az_of))
    zone_mask = {z: sum(bit[r] for r in range(n) if az_of[r] == z) for z in zones}
    made: dict[tuple, AvailabilityZoneFailure] = {}

    def make_action(az: int, brokers: tuple, epoch: int, ends: tuple) -> AvailabilityZoneFailure:
        key = (az, brokers, epoch, ends)
        got = made.get(key)
        if got is None:
            got = made[key] = AvailabilityZoneFailure(az, brokers, epoch, ends)
        return got

    def step(s: tuple, out: list) -> None:
        if s[fail_i] >= max_failures:
            return
        dead = s[dead_i]
        for z in zones:
            down = zone_mask[z] & ~dead
            if not down:
                continue
            ql, qi, reqs = s[ql_i], s[qi_i], s[rq_i]
            if (ql >= 0 and down & bit[ql]) or qi & down:
                epoch = len(reqs)
                if epoch > max_epoch:
                    continue
                leader = -1 if ql >= 0 and down & bit[ql] else ql
                isr = qi & ~down
                # Which sole member the controller keeps depends on the order it processes the dead
                # brokers in: every choice is explored (and symmetry stays sound).
                isrs = [isr] if isr or kip966 else [bit[m] for m in members[qi]]
                quorums = [(leader, i, reqs + (((leader + 1) << n) | i,)) for i in isrs]
            else:
                epoch = -1
                quorums = [(ql, qi, reqs)]
            for quorum in quorums:
                emit(s, z, down, dead, epoch, quorum, out)

    def emit(s: tuple, z: int, down: int, dead: int, epoch: int, quorum: tuple, out: list) -> None:
        nxt = list(s)
        ends = []
        for r in members[down]:
            b = base[r]
            keep = s[flushed_i + r]
            hw = s[b + HW]
            nxt[b] = s[b] % pow_[keep]
            nxt[b + HW] = hw if hw < keep else keep
            nxt[b + LEADER] = -1
            ends.append(keep)
        nxt[ql_i], nxt[qi_i], nxt[rq_i] = quorum
        nxt[dead_i] = dead | down
        nxt[fail_i] = s[fail_i] + 1
        out.append((make_action(z + 1, tuple(r + 1 for r in members[down]), epoch, tuple(ends)), tuple(nxt)))

    return step
