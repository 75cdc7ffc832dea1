"""KIP-320 as accepted (Kafka 2.1, ``Kip320.tla``): fencing by the current leader epoch.

Modelled (rules found while verifying the spec):

- ``FencedBecomeFollowerAndTruncate``: a replica adopts a higher-epoch request naming another
  replica leader only once that replica presumes leadership *at the request's epoch*, then
  truncates KIP-279 style against it (OffsetsForLeaderEpoch fenced by the current epoch).
- ``FencedFollowerFetch``: a follower fetches only while its epoch equals its leader's (the
  fetch request carries the current leader epoch; FENCED/UNKNOWN_LEADER_EPOCH otherwise).
- ``FencedLeaderIncHighWatermark``: the HW advances when the leader's log holds the HW offset and
  every cached-ISR member follows the leader at the leader's epoch and holds that offset.
- ``FencedLeaderShrinkIsr``: the true leader may drop a member that is on another epoch or behind
  its log end offset.
- ``FencedLeaderExpandIsr``: the true leader admits a replica following it at its epoch that holds
  the HW offset, but only once the HW has reached the leader's own epoch (the fix for bug K6: a new
  leader's HW lags the old one, so admitting at the stale HW could admit a replica missing
  committed records).

Abstracted away as in ``model.classic_steps``.
"""

from __future__ import annotations

from .common import Step, quorum_update, true_leader_blocks
from .kip320_first_try import hw_reached_current_epoch
from .state import EPOCH, HW, ISR, LEADER, REQUESTS
from .tables import ModelTables


def fenced_leader_expand_isr(t: ModelTables, wait_for_epoch_start: bool = True) -> Step:
    """``wait_for_epoch_start=False`` is bug K6 (``model.durability``): admit a follower at the
    leader's possibly stale HW before the HW has reached the leader's epoch."""
    g = t.layout.g
    rq_i, ql_i = g + REQUESTS, g + 1
    length = t.logs.length
    members, all_mask, base, bit = t.layout.members, t.layout.all_mask, t.layout.base, t.layout.bit
    acts = t.actions.expand
    blocks = true_leader_blocks(t)
    reached = hw_reached_current_epoch(t) if wait_for_epoch_start else _always

    def step(s: tuple, out: list) -> None:
        ql = s[ql_i]
        if ql < 0:
            return
        for leader, b in blocks:
            epoch = s[b + EPOCH]
            if leader != ql or s[b + LEADER] != leader or epoch != len(s[rq_i]) - 1:
                continue
            if not reached(s, b):
                continue
            isr = s[b + ISR]
            hw = s[b + HW]
            for r in members[all_mask & ~isr]:
                rb = base[r]
                # IsFollowingLeaderEpoch /\ HasFollowerReachedHighWatermark
                if s[rb + LEADER] == leader and s[rb + EPOCH] == epoch and (hw == 0 or hw <= length[s[rb]]):
                    out.append((acts[leader][r], quorum_update(s, b, g, isr | bit[r])))

    return step


def _always(s: tuple, b: int) -> bool:
    return True


def fenced_leader_shrink_isr(t: ModelTables) -> Step:
    g = t.layout.g
    rq_i, ql_i = g + REQUESTS, g + 1
    length = t.logs.length
    members, base, bit = t.layout.members, t.layout.base, t.layout.bit
    acts = t.actions.shrink
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        ql = s[ql_i]
        if ql < 0:
            return
        for leader, b in blocks:
            epoch = s[b + EPOCH]
            if leader != ql or s[b + LEADER] != leader or epoch != len(s[rq_i]) - 1:
                continue
            isr = s[b + ISR]
            end = length[s[b]]
            for r in members[isr]:
                if r == leader:
                    continue
                rb = base[r]
                if s[rb + LEADER] != leader or s[rb + EPOCH] != epoch or length[s[rb]] < end:
                    out.append((acts[leader][r], quorum_update(s, b, g, isr & ~bit[r])))

    return step


def fenced_leader_inc_high_watermark(t: ModelTables) -> Step:
    length = t.logs.length
    members, base = t.layout.members, t.layout.base
    acts = t.actions.inc_hw
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        for leader, b in blocks:
            hw = s[b + HW]
            if hw >= length[s[b]]:
                continue
            presumes = s[b + LEADER] == leader
            epoch = s[b + EPOCH]
            # Literal spec: with an empty cached ISR the quantifier (and with it the leadership
            # check inside IsFollowingLeaderEpoch) is vacuous.
            for f in members[s[b + ISR]]:
                fb = base[f]
                if not presumes or s[fb + LEADER] != leader or s[fb + EPOCH] != epoch or length[s[fb]] <= hw:
                    break
            else:
                out.append((acts[leader][hw + 1], s[: b + HW] + (hw + 1,) + s[b + HW + 1 :]))

    return step
