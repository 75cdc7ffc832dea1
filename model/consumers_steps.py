"""Steps the consumer options add (``model.consumers``): consumer fetches, truncation on fetch
with the fetch response's steps separated as Kafka separates them, and availability-zone failures.

Each step builds whole next states (classic fields plus ``model.durability_config.ExtLayout``) and
cites the Kafka mechanism it models.

Truncation on fetch (Kafka 2.7+, ``AbstractFetcherThread`` with ``isTruncationOnFetchSupported``)
replaces KIP-320's truncation on becoming follower in generation kip320:

- ``BecomeFollower`` (``Partition.makeFollower``): adopt a higher-epoch LeaderAndIsr request,
  keeping log and HW; no OffsetsForLeaderEpoch round trip.
- ``FollowerReplicate`` (``ReplicaFetcherThread.processPartitionData``): the follower fetches at
  the leader's epoch (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH otherwise, KIP-320) with its
  ``lastFetchedEpoch``; when the leader's log holds that epoch at the follower's last offset (no
  divergence) it appends the next record and takes min(leader HW, its log end offset).
- ``FollowerTruncate`` (``truncateOnFetchResponse``): when the leader answers with a
  ``divergingEpoch`` (the follower's log is longer than the leader's or its last record's epoch
  differs from the leader's at that offset), the follower truncates to the last offset where it
  holds the leader's record (the result of the rounds of diverging-epoch fetches; KIP-279's rule)
  and caps its HW there.
- ``FollowerUpdateHighWatermark`` (K13 only, ``truncation="on-fetch-hw-first"``): the HW of that
  same diverging response applied before the truncation (KAFKA-14704).
- The leader counts a follower towards the HW and the ISR only up to where their logs match:
  the leader learns a follower's position from its non-diverging fetches only
  (``Partition.updateFollowerFetchState`` is not called for a diverging read), so the same-length
  check of ``Kip320.tla`` becomes a common-prefix check.

Abstracted away: the fetch request and response as messages (the response is read from the
leader's current state in the step that processes it), fetch sessions, empty fetches that carry
only a new HW (a follower's HW moves only with a record or a diverging response, as in the spec).
"""

from __future__ import annotations

from .common import Step, quorum_update, true_leader_blocks
from .durability_config import ExtLayout
from .kip320_first_try import hw_reached_current_epoch
from .state import EPOCH, HW, ISR, LEADER, Q_ISR, Q_LEADER, REQUESTS
from .tables import ModelTables


def common_prefix_fn(t: ModelTables):
    common = t.logs.common_prefix
    size = t.logs.size
    memo: dict[int, int] = {}

    def prefix(a: int, b: int) -> int:
        key = a * size + b
        got = memo.get(key)
        if got is None:
            got = memo[key] = common(a, b)
        return got

    return prefix


def _always(s: tuple, b: int) -> bool:
    return True


# -- the leader's view of its followers, learnt from non-diverging fetches ---------------------------


def leader_expand_isr_on_fetch(t: ModelTables, wait_for_epoch_start: bool = True) -> Step:
    """``FencedLeaderExpandIsr`` with the follower's position known only where it matches the
    leader's log (``Partition.maybeExpandIsr``)."""
    g = t.layout.g
    rq_i, ql_i = g + REQUESTS, g + 1
    members, all_mask, base, bit = t.layout.members, t.layout.all_mask, t.layout.base, t.layout.bit
    acts = t.actions.expand
    blocks = true_leader_blocks(t)
    reached = hw_reached_current_epoch(t) if wait_for_epoch_start else _always
    prefix = common_prefix_fn(t)

    def step(s: tuple, out: list) -> None:
        ql = s[ql_i]
        if ql < 0:
            return
        for leader, b in blocks:
            epoch = s[b + EPOCH]
            if leader != ql or s[b + LEADER] != leader or epoch != len(s[rq_i]) - 1 or not reached(s, b):
                continue
            isr, hw, log = s[b + ISR], s[b + HW], s[b]
            for r in members[all_mask & ~isr]:
                rb = base[r]
                if s[rb + LEADER] == leader and s[rb + EPOCH] == epoch and (hw == 0 or prefix(log, s[rb]) >= hw):
                    out.append((acts[leader][r], quorum_update(s, b, g, isr | bit[r])))

    return step


def leader_shrink_isr_on_fetch(t: ModelTables) -> Step:
    """``FencedLeaderShrinkIsr``: a member on another epoch, or whose matching prefix is behind
    the leader's log end offset, may be dropped (``Partition.maybeShrinkIsr``)."""
    g = t.layout.g
    rq_i, ql_i = g + REQUESTS, g + 1
    length = t.logs.length
    members, base, bit = t.layout.members, t.layout.base, t.layout.bit
    acts = t.actions.shrink
    blocks = true_leader_blocks(t)
    prefix = common_prefix_fn(t)

    def step(s: tuple, out: list) -> None:
        ql = s[ql_i]
        if ql < 0:
            return
        for leader, b in blocks:
            epoch = s[b + EPOCH]
            if leader != ql or s[b + LEADER] != leader or epoch != len(s[rq_i]) - 1:
                continue
            isr, log = s[b + ISR], s[b]
            end = length[log]
            for r in members[isr]:
                if r == leader:
                    continue
                rb = base[r]
                if s[rb + LEADER] != leader or s[rb + EPOCH] != epoch or prefix(log, s[rb]) < end:
                    out.append((acts[leader][r], quorum_update(s, b, g, isr & ~bit[r])))

    return step


def leader_inc_high_watermark_on_fetch(t: ModelTables) -> Step:
    """``FencedLeaderIncHighWatermark`` counting a member only where its log matches the leader's
    (``Partition.maybeIncrementLeaderHW``)."""
    length = t.logs.length
    members, base = t.layout.members, t.layout.base
    acts = t.actions.inc_hw
    blocks = true_leader_blocks(t)
    prefix = common_prefix_fn(t)

    def step(s: tuple, out: list) -> None:
        for leader, b in blocks:
            hw, log = s[b + HW], s[b]
            if hw >= length[log]:
                continue
            presumes = s[b + LEADER] == leader
            epoch = s[b + EPOCH]
            for f in members[s[b + ISR]]:
                fb = base[f]
                if not presumes or s[fb + LEADER] != leader or s[fb + EPOCH] != epoch or prefix(log, s[fb]) <= hw:
                    break
            else:
                out.append((acts[leader][hw + 1], s[: b + HW] + (hw + 1,) + s[b + HW + 1 :]))

    return step


# -- the follower's fetch and the steps of its response ------------------------------------------------


def _fetch_partner(t: ModelTables):
    """(follower, block, leader, leader block, diverging) for every follower whose fetch the leader
    answers (both at one epoch, the leader presuming leadership)."""
    length, epoch_at, base = t.logs.length, t.logs.epoch_at, t.layout.base
    blocks = true_leader_blocks(t)

    def partners(s: tuple):
        for f, fb in blocks:
            leader = s[fb + LEADER]
            if leader < 0 or leader == f:
                continue
            lb = base[leader]
            if s[lb + LEADER] != leader or s[lb + EPOCH] != s[fb + EPOCH]:
                continue
            log, leader_log = s[fb], s[lb]
            k, lk = length[log], length[leader_log]
            diverging = k > lk or (k > 0 and epoch_at[leader_log][k - 1] != epoch_at[log][k - 1])
            yield f, fb, leader, lb, diverging

    return partners


def follower_fetch_on_fetch(t: ModelTables) -> Step:
    length, records, pow_ = t.logs.length, t.logs.records, t.logs.pow
    acts = t.actions.replicate
    partners = _fetch_partner(t)

    def step(s: tuple, out: list) -> None:
        for f, fb, leader, lb, diverging in partners(s):
            log, leader_log = s[fb], s[lb]
            k = length[log]
            if diverging or k >= length[leader_log]:
                continue
            new_log = log + (records[leader_log][k] + 1) * pow_[k]
            leader_hw = s[lb + HW]
            hw = leader_hw if leader_hw < k + 1 else k + 1
            out.append((acts[f][leader][k], s[:fb] + (new_log, hw) + s[fb + 2 :]))

    return step


def follower_truncate_on_fetch(t: ModelTables) -> Step:
    pow_ = t.logs.pow
    first_mismatch = t.logs.first_mismatch_from_tail
    acts = t.actions.follower_truncate
    partners = _fetch_partner(t)

    def step(s: tuple, out: list) -> None:
        for f, fb, leader, lb, diverging in partners(s):
            if not diverging:
                continue
            log = s[fb]
            off = first_mismatch(s[lb], log)
            hw = s[fb + HW]
            out.append((acts[f][leader][off], s[:fb] + (log % pow_[off], off if off < hw else hw) + s[fb + 2 :]))

    return step


def follower_update_hw_before_truncation(t: ModelTables, acts) -> Step:
    """K13: ``FollowerUpdateHighWatermark`` from a diverging response, before truncating."""
    length = t.logs.length
    partners = _fetch_partner(t)

    def step(s: tuple, out: list) -> None:
        for f, fb, leader, lb, diverging in partners(s):
            if not diverging:
                continue
            k = length[s[fb]]
            leader_hw = s[lb + HW]
            hw = leader_hw if leader_hw < k else k  # UnifiedLog.updateHighWatermark caps at the log end
            if hw != s[fb + HW]:
                out.append((acts[f][leader][hw], s[: fb + HW] + (hw,) + s[fb + HW + 1 :]))

    return step


# -- consumers ---------------------------------------------------------------------------------------


def consumer_fetch(t: ModelTables, ext: ExtLayout, from_followers: bool, acts) -> Step:
    """``ConsumerFetch``: a running replica that presumes leadership (or, with KIP-392, follows a
    leader) serves the record at an offset below its HW. The ghost ``served[offset]`` records the
    first record id served there (+1); a different record served at the same offset later marks
    the offset CONFLICT (two consumers read different records at one offset). A read that changes
    no ghost value is not a new state and is not generated."""
    served_i = ext.served
    dead_i = ext.dead
    bit = t.layout.bit
    records, epochs = t.logs.records, t.logs.epochs
    conflict = t.config.max_records + 1
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        dead = s[dead_i] if dead_i >= 0 else 0
        for r, b in blocks:
            leader = s[b + LEADER]
            if leader < 0 or (leader != r and not from_followers) or dead & bit[r]:
                continue
            recs = records[s[b]]
            for off in range(s[b + HW]):
                rid = recs[off] // epochs
                i = served_i + off
                now = s[i]
                if now == rid + 1 or now == conflict:
                    continue
                out.append((acts[r][off][rid], s[:i] + (rid + 1 if now == 0 else conflict,) + s[i + 1 :]))

    return step


# -- racks -------------------------------------------------------------------------------------------


def az_failure(t: ModelTables, ext: ExtLayout, az_of: tuple[int, ...], max_failures: int, kip966: bool,
               make_action) -> Step:
    """``AvailabilityZoneFailure``: every running broker of one zone loses power at once. Each
    keeps its flushed prefix (log recovery truncates to the recovery point), caps its HW there and
    leads nothing; the controller (``KafkaController.onBrokerFailure`` with every dead broker at once)
    removes them from the ISR in one update with a new leader epoch, leaving the partition
    leaderless if the leader was among them. If no ISR member survives, the ISR keeps one of them
    (the ZooKeeper controller never empties an ISR: ``removeReplicasFromIsr`` keeps a sole member;
    which one depends on the order the dead brokers are processed in, so every choice is explored),
    unless KIP-966's rule for unclean shutdowns is on, which
    empties it (the partition goes offline rather than be led by a replica that lost data)."""
    n, g = t.layout.n, t.layout.g
    ql_i, qi_i, rq_i = g + Q_LEADER, g + Q_ISR, g + REQUESTS
    dead_i, flushed_i, fail_i = ext.dead, ext.flushed, ext.az_failed
    base, bit, members = t.layout.base, t.layout.bit, t.layout.members
    pow_ = t.logs.pow
    max_epoch = t.config.max_leader_epoch
    zones = sorted(set(az_of))
    zone_mask = {z: sum(bit[r] for r in range(n) if az_of[r] == z) for z in zones}

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
