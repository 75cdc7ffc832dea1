"""The rejected first draft of KIP-320 (``Kip320FirstTry.tla``; bug K5 at 3 replicas).

Modelled: followers send the epoch of their last fetched record with each fetch and truncate
lazily when the leader answers with a LOG_TRUNCATION error, instead of truncating on becoming
follower.

- ``BecomeFollower``: adopt a higher-epoch LeaderAndIsr request naming another replica leader,
  keeping log and HW.
- ``FollowerFetch``: fetch the next record only if the entry before the fetch offset has the
  leader's epoch for that offset (``IsFollowerCaughtUpToLeaderEpoch``); HW as in ``FollowerReplicate``.
- ``FollowerTruncate``: if the follower is ahead of the leader's end offset or its last entry's
  epoch differs from the leader's at that offset, truncate KIP-279 style (last matching entry).
- ``ImprovedLeaderIncHighWatermark``: advance the HW when every cached-ISR member follows this
  leader and holds the record at the HW with the leader's epoch for it.
- ``LeaderShrinkIsrBetterFencing`` / ``LeaderExpandIsrBetterFencing``: the caught-up test also
  compares record epochs; expansion waits until the HW has reached the leader's own epoch.

Why it is unsafe: the leader cannot tell that a follower is on its *current* epoch, so a follower
on an older epoch can let the HW advance and later truncate the committed record while it is still
eligible for election. Abstracted away as in ``model.classic_steps``.
"""

from __future__ import annotations

from . import classic_steps as classic
from .common import Step, quorum_update, true_leader_blocks
from .state import EPOCH, HW, ISR, LEADER, REQUESTS
from .tables import ModelTables


def _caught_up_to_leader_epoch(t: ModelTables):
    """``IsFollowerCaughtUpToLeaderEpoch(leader, follower, end)`` minus the leader's presumption
    (every caller checks it first): the follower follows the leader, and ``end`` is 0 or both logs
    hold offset ``end - 1`` with the same epoch."""
    length = t.logs.length
    epoch_at = t.logs.epoch_at

    def caught_up(s: tuple, leader: int, leader_log: int, fb: int, end: int) -> bool:
        if s[fb + LEADER] != leader:
            return False
        if end == 0:
            return True
        follower_log = s[fb]
        off = end - 1
        return (
            off < length[leader_log]
            and off < length[follower_log]
            and (epoch_at[follower_log][off] == epoch_at[leader_log][off])
        )

    return caught_up


def hw_reached_current_epoch(t: ModelTables):
    """``HasHighWatermarkReachedCurrentEpoch(leader)``: the HW is the leader's end offset, or the
    record at the HW carries the leader's current epoch."""
    length = t.logs.length
    epoch_at = t.logs.epoch_at

    def reached(s: tuple, b: int) -> bool:
        hw = s[b + HW]
        log = s[b]
        k = length[log]
        return hw == k or (hw < k and epoch_at[log][hw] == s[b + EPOCH])

    return reached


def _always(s: tuple, b: int) -> bool:
    return True


def leader_expand_isr_better_fencing(t: ModelTables, wait_for_epoch_start: bool = True) -> Step:
    """``wait_for_epoch_start=False``: bug K6 (see ``model.kip320.fenced_leader_expand_isr``)."""
    g = t.layout.g
    rq_i, ql_i = g + REQUESTS, g + 1
    members, all_mask, base, bit = t.layout.members, t.layout.all_mask, t.layout.base, t.layout.bit
    acts = t.actions.expand
    blocks = true_leader_blocks(t)
    caught_up = _caught_up_to_leader_epoch(t)
    reached = hw_reached_current_epoch(t) if wait_for_epoch_start else _always

    def step(s: tuple, out: list) -> None:
        ql = s[ql_i]
        if ql < 0:
            return
        for leader, b in blocks:
            if leader != ql or s[b + LEADER] != leader or s[b + EPOCH] != len(s[rq_i]) - 1:
                continue
            if not reached(s, b):
                continue
            isr = s[b + ISR]
            hw = s[b + HW]
            leader_log = s[b]
            for r in members[all_mask & ~isr]:
                if caught_up(s, leader, leader_log, base[r], hw):
                    out.append((acts[leader][r], quorum_update(s, b, g, isr | bit[r])))

    return step


def leader_shrink_isr_better_fencing(t: ModelTables) -> Step:
    g = t.layout.g
    rq_i, ql_i = g + REQUESTS, g + 1
    length = t.logs.length
    members, base, bit = t.layout.members, t.layout.base, t.layout.bit
    acts = t.actions.shrink
    blocks = true_leader_blocks(t)
    caught_up = _caught_up_to_leader_epoch(t)

    def step(s: tuple, out: list) -> None:
        ql = s[ql_i]
        if ql < 0:
            return
        for leader, b in blocks:
            if leader != ql or s[b + LEADER] != leader or s[b + EPOCH] != len(s[rq_i]) - 1:
                continue
            isr = s[b + ISR]
            leader_log = s[b]
            end = length[leader_log]
            for r in members[isr]:
                if r != leader and not caught_up(s, leader, leader_log, base[r], end):
                    out.append((acts[leader][r], quorum_update(s, b, g, isr & ~bit[r])))

    return step


def improved_leader_inc_high_watermark(t: ModelTables) -> Step:
    length = t.logs.length
    members, base = t.layout.members, t.layout.base
    acts = t.actions.inc_hw
    blocks = true_leader_blocks(t)
    caught_up = _caught_up_to_leader_epoch(t)

    def step(s: tuple, out: list) -> None:
        for leader, b in blocks:
            if s[b + LEADER] != leader:
                continue
            hw = s[b + HW]
            leader_log = s[b]
            if hw >= length[leader_log]:
                continue
            for f in members[s[b + ISR]]:
                if not caught_up(s, leader, leader_log, base[f], hw + 1):
                    break
            else:
                out.append((acts[leader][hw + 1], s[: b + HW] + (hw + 1,) + s[b + HW + 1 :]))

    return step


def become_follower(t: ModelTables) -> Step:
    n = t.layout.n
    rq_i = t.layout.g + REQUESTS
    mask = t.layout.all_mask
    acts = t.actions.follow
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        for epoch, request in enumerate(s[rq_i]):
            leader = (request >> n) - 1
            if leader < 0:
                continue
            isr = request & mask
            for r, b in blocks:
                if r != leader and epoch > s[b + EPOCH]:
                    out.append((acts[r][leader][epoch], s[: b + EPOCH] + (epoch, leader, isr) + s[b + 5 :]))

    return step


def follower_fetch(t: ModelTables) -> Step:
    """The draft's fetch: unfenced, but only once the follower has caught up to the leader epoch."""
    return classic.follower_replicate(t, may_fetch=_caught_up_to_leader_epoch(t))


def follower_truncate(t: ModelTables) -> Step:
    length = t.logs.length
    epoch_at = t.logs.epoch_at
    pow_ = t.logs.pow
    first_mismatch = t.logs.first_mismatch_from_tail
    base = t.layout.base
    acts = t.actions.follower_truncate
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        for f, fb in blocks:
            leader = s[fb + LEADER]
            if leader < 0 or leader == f:
                continue
            lb = base[leader]
            if s[lb + LEADER] != leader:
                continue
            log = s[fb]
            leader_log = s[lb]
            k = length[log]
            lk = length[leader_log]
            # FollowerNeedsTruncation(follower, leader)
            if not (k > lk or (0 < k <= lk and epoch_at[leader_log][k - 1] != epoch_at[log][k - 1])):
                continue
            off = first_mismatch(leader_log, log)
            hw = s[fb + HW]
            out.append(
                (acts[f][leader][off], s[:fb] + (log % pow_[off], off if off < hw else hw) + s[fb + 2 :])
            )

    return step
