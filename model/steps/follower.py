"""A follower's steps, once for every generation: adopting a request, fetching, truncating.

Each step reads its generation's rule (``model.generations``):

- ``BecomeFollowerAndTruncateTo`` (``KafkaReplication.tla``; ``FencedBecomeFollowerAndTruncate``
  in ``Kip320.tla``): a replica adopts a LeaderAndIsr request of a higher epoch naming another
  replica leader, truncates its log to its generation's offset (``model.steps.truncation``) and
  caps its HW there; the step is disabled when that offset lies beyond its log end, as
  ``FiniteReplicatedLog!TruncateTo`` requires. With KIP-320's fencing the OffsetsForLeaderEpoch
  request carries the leader epoch, so the named replica must already lead at that epoch.
- ``BecomeFollower`` (``Kip320FirstTry.tla``; ``Partition.makeFollower`` with truncation on
  fetch): adopt the request keeping log and HW; truncation is deferred to ``FollowerTruncate``.
- ``FollowerReplicate`` (``FollowerFetch``, ``FencedFollowerFetch``): a follower fetches the next
  record from the replica it follows, which must presume leadership (with fencing: at the
  follower's epoch, FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH otherwise), and takes
  ``min(leader HW, its new end offset)``. Generations that truncate lazily fetch only while the
  follower's last record has the leader's epoch for that offset (the draft's
  ``IsFollowerCaughtUpToLeaderEpoch``; Kafka 2.7+'s ``lastFetchedEpoch`` with no divergence).
- ``FollowerTruncate`` (``Kip320FirstTry.tla``; ``truncateOnFetchResponse``): when the follower is
  ahead of the leader's end offset or its last record's epoch differs from the leader's at that
  offset (LOG_TRUNCATION error, or a ``divergingEpoch`` in the fetch response), it truncates to the
  last offset where it holds the leader's record (KIP-279's rule) and caps its HW there.
- ``FollowerUpdateHighWatermark`` (bug K13, KAFKA-14704): the HW of that diverging response is
  applied before the truncation (``log.maybeUpdateHighWatermark`` before
  ``truncateOnFetchResponse``; fixed in apache/kafka#13230).

A stopped broker takes none of these steps. A truncation also lowers the replica's flushed offset
(the recovery point never exceeds the log end) when lossy stops are modelled.

Abstracted away: fetch requests and responses as messages (a fetch is one atomic step that reads
the leader's current state), fetch sessions, empty fetches that carry only a new HW (a follower's
HW moves only with a record or a diverging response, as in the spec).
"""

from __future__ import annotations

from typing import Any

from ..encoding.state import EPOCH, HW, ISR, LEADER
from .controller import NamedRequests, Step, running
from .truncation import TRUNCATE_TO


def become_follower_and_truncate(t: Any) -> Step:
    """``BecomeFollowerAndTruncateTo`` at the generation's ``truncate_to`` offset, fenced or not."""
    lay = t.layout
    base, rq_i = lay.base, lay.requests_i
    blocks, live, dead_i = running(t)
    named = NamedRequests(lay.n)
    length, pow_ = t.logs.length, t.logs.pow
    truncation_offset = TRUNCATE_TO[t.generation.truncate_to](t)
    fenced = t.generation.fenced
    acts = t.actions.follow_truncate
    flushed_i = t.fields.flushed

    def step(s: tuple, out: list) -> None:
        replicas = live[s[dead_i]] if live else blocks
        for epoch, leader, isr in named[s[rq_i]]:
            if fenced:
                lb = base[leader]
                if s[lb + LEADER] != leader or s[lb + EPOCH] != epoch:
                    continue  # the named leader must already lead at this epoch
            for r, b in replicas:
                if r == leader or epoch <= s[b + EPOCH]:
                    continue
                off = truncation_offset(s, leader, r, b)
                log = s[b]
                if off > length[log]:
                    continue  # TruncateTo(replica, off) requires off <= end offset
                hw = s[b + HW]
                nxt = s[:b] + (log % pow_[off], off if off < hw else hw, epoch, leader, isr) + s[b + ISR + 1 :]
                if flushed_i >= 0 and nxt[flushed_i + r] > off:
                    nxt = nxt[: flushed_i + r] + (off,) + nxt[flushed_i + r + 1 :]
                out.append((acts[r][leader][epoch][off], nxt))

    return step


def become_follower(t: Any) -> Step:
    """``BecomeFollower``: adopt a newer request naming another leader, keeping log and HW."""
    rq_i = t.layout.requests_i
    blocks, live, dead_i = running(t)
    named = NamedRequests(t.layout.n)
    acts = t.actions.follow

    def step(s: tuple, out: list) -> None:
        replicas = live[s[dead_i]] if live else blocks
        for epoch, leader, isr in named[s[rq_i]]:
            for r, b in replicas:
                if r != leader and epoch > s[b + EPOCH]:
                    out.append((acts[r][leader][epoch], s[: b + EPOCH] + (epoch, leader, isr) + s[b + ISR + 1 :]))

    return step


def _fetching(t: Any):
    """(follower, block, leader, leader block) for every running follower whose fetch its leader
    answers: the leader presumes leadership (and, fenced, is at the follower's epoch)."""
    base = t.layout.base
    blocks, live, dead_i = running(t)
    fenced = t.generation.fenced

    def pairs(s: tuple):
        for f, fb in (live[s[dead_i]] if live else blocks):
            leader = s[fb + LEADER]
            if leader < 0 or leader == f:
                continue
            lb = base[leader]
            if s[lb + LEADER] != leader or (fenced and s[lb + EPOCH] != s[fb + EPOCH]):
                continue
            yield f, fb, leader, lb

    return pairs


def follower_replicate(t: Any) -> Step:
    """``FollowerReplicate``: fetch the next record, fenced or not, checking the last epoch or not."""
    base = t.layout.base
    blocks, live, dead_i = running(t)
    length, records, pow_, epoch_at = t.logs.length, t.logs.records, t.logs.pow, t.logs.epoch_at
    fenced, matches_last_epoch = t.generation.fenced, t.generation.fetch_matches_last_epoch
    acts = t.actions.replicate

    def step(s: tuple, out: list) -> None:
        # The loop of ``_fetching`` written out: this step runs on every state of every generation,
        # and the generator would cost it about 4 % of a whole run (measured on KIP-320 3/2/2/2).
        for f, fb in (live[s[dead_i]] if live else blocks):
            leader = s[fb + LEADER]
            if leader < 0 or leader == f:
                continue
            lb = base[leader]
            if s[lb + LEADER] != leader or (fenced and s[lb + EPOCH] != s[fb + EPOCH]):
                continue
            log, leader_log = s[fb], s[lb]
            k = length[log]
            if k >= length[leader_log]:
                continue
            if matches_last_epoch and k and epoch_at[leader_log][k - 1] != epoch_at[log][k - 1]:
                continue  # diverging: the follower must truncate first
            new_log = log + (records[leader_log][k] + 1) * pow_[k]
            leader_hw = s[lb + HW]
            hw = leader_hw if leader_hw < k + 1 else k + 1
            out.append((acts[f][leader][k], s[:fb] + (new_log, hw) + s[fb + 2 :]))

    return step


def _diverging(t: Any):
    """``FollowerNeedsTruncation``: the follower's log is longer than the leader's, or its last
    record's epoch differs from the leader's at that offset."""
    length, epoch_at = t.logs.length, t.logs.epoch_at

    def diverging(log: int, leader_log: int) -> bool:
        k, lk = length[log], length[leader_log]
        return k > lk or (k > 0 and epoch_at[leader_log][k - 1] != epoch_at[log][k - 1])

    return diverging


def follower_truncate(t: Any) -> Step:
    """``FollowerTruncate``: truncate a diverging log to the last offset holding the leader's record."""
    pow_, first_mismatch = t.logs.pow, t.logs.first_mismatch_from_tail
    acts = t.actions.follower_truncate
    flushed_i = t.fields.flushed
    fetching, diverging = _fetching(t), _diverging(t)

    def step(s: tuple, out: list) -> None:
        for f, fb, leader, lb in fetching(s):
            log, leader_log = s[fb], s[lb]
            if not diverging(log, leader_log):
                continue
            off = first_mismatch(leader_log, log)
            hw = s[fb + HW]
            nxt = s[:fb] + (log % pow_[off], off if off < hw else hw) + s[fb + 2 :]
            if flushed_i >= 0 and nxt[flushed_i + f] > off:
                nxt = nxt[: flushed_i + f] + (off,) + nxt[flushed_i + f + 1 :]
            out.append((acts[f][leader][off], nxt))

    return step


def follower_update_high_watermark(t: Any) -> Step:
    """K13: ``FollowerUpdateHighWatermark`` from a diverging response, before truncating."""
    length = t.logs.length
    acts = t.actions.update_hw
    fetching, diverging = _fetching(t), _diverging(t)

    def step(s: tuple, out: list) -> None:
        for f, fb, leader, lb in fetching(s):
            if not diverging(s[fb], s[lb]):
                continue
            k = length[s[fb]]
            leader_hw = s[lb + HW]
            hw = leader_hw if leader_hw < k else k  # UnifiedLog.updateHighWatermark caps at the log end
            if hw != s[fb + HW]:
                out.append((acts[f][leader][hw], s[: fb + HW] + (hw,) + s[fb + HW + 1 :]))

    return step
