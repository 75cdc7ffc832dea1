"""The true leader's steps on its ISR and its high watermark, once for every generation.

Each step reads its generation's rule (``model.generations``, ``model.steps.rules``):

- ``LeaderShrinkIsr`` (``FencedLeaderShrinkIsr`` in ``Kip320.tla``, ``LeaderShrinkIsrBetterFencing``
  in ``Kip320FirstTry.tla``): the true leader drops a member that has not caught up to its log end
  offset (``replica.lag.time.max.ms`` expiry; with fencing, also a member on another epoch),
  writing the new ISR to the quorum (zkVersion fencing assumed correct).
- ``LeaderExpandIsr`` (``FencedLeaderExpandIsr``, ``LeaderExpandIsrBetterFencing``): the true
  leader re-admits a follower that has caught up to its high watermark; from KIP-320's draft on,
  only once the HW has reached the leader's own epoch (the fix for bug K6: a new leader's HW lags
  the old one, so admitting at the stale HW could admit a replica missing committed records; the
  ``expand_before_epoch_start`` option is the bug).
- ``LeaderIncHighWatermark`` (``FencedLeaderIncHighWatermark``, ``ImprovedLeaderIncHighWatermark``):
  a presumed leader advances its HW when every member of its cached ISR follows it and has caught
  up to the next offset. With ``acks=all`` the record the HW passes is acknowledged when the ISR
  still has ``min.insync.replicas`` members (``Partition.checkEnoughReplicasReachOffset``; an
  over-approximation on purpose: a produce request Kafka would have failed at a leadership change
  is counted as acknowledged, and losing it is a loss either way).

``IsTrueLeader(r)``: ``r`` is the quorum leader, presumes leadership and has adopted the quorum's
leader epoch. A stopped broker takes none of these steps.

Abstracted away: fetch requests as messages (the leader reads its followers' logs directly, as
the spec does), fetch sessions, timing of the lag check (any lagging follower may be dropped).
"""

from __future__ import annotations

from typing import Any

from ..encoding.state import EPOCH, HW, ISR, LEADER
from .controller import Step, running, stopped_brokers
from .rules import caught_up_table, hw_reached_current_epoch


def quorum_update(s: tuple, b: int, q_isr: int, new_isr: int) -> tuple:
    """``QuorumUpdateLeaderAndIsr``: the true leader (block ``b``) writes ``new_isr`` to the quorum
    (position ``q_isr``) and to its own cached ISR. The caller has checked ``IsTrueLeader``."""
    return s[: b + ISR] + (new_isr,) + s[b + ISR + 1 : q_isr] + (new_isr,) + s[q_isr + 1 :]


def true_leader(t: Any):
    """``IsTrueLeader`` of the quorum leader, running: its block offset, or -1. The quorum leader
    is the only replica that can be the true leader, so the ISR steps look at it alone."""
    lay = t.layout
    base, bit = lay.base, lay.bit
    ql_i, rq_i = lay.q_leader, lay.requests_i
    dead_i, stops = stopped_brokers(t)

    def block(s: tuple) -> int:
        leader = s[ql_i]
        if leader < 0:
            return -1
        b = base[leader]
        if s[b + LEADER] != leader or s[b + EPOCH] != len(s[rq_i]) - 1 or (stops and s[dead_i] & bit[leader]):
            return -1
        return b

    return block


def leader_shrink_isr(t: Any) -> Step:
    """``LeaderShrinkIsr`` with the generation's ``isr_rule`` and fencing."""
    lay = t.layout
    base, members, bit, qi_i = lay.base, lay.members, lay.bit, lay.q_isr
    length = t.logs.length
    caught, mult = caught_up_table(t, t.generation.isr_rule)
    fenced = t.generation.fenced
    acts = t.actions.shrink
    leader_block = true_leader(t)

    def step(s: tuple, out: list) -> None:
        b = leader_block(s)
        if b < 0:
            return
        leader, epoch = s[b + LEADER], s[b + EPOCH]
        isr, log = s[b + ISR], s[b]
        end, row = length[log], log * mult
        for r in members[isr]:
            if r == leader:
                continue
            rb = base[r]
            # not IsFollowerCaughtUp(leader, r, end offset)
            if s[rb + LEADER] != leader or (fenced and s[rb + EPOCH] != epoch) or not caught[row + s[rb]] >> end & 1:
                out.append((acts[leader][r], quorum_update(s, b, qi_i, isr & ~bit[r])))

    return step


def leader_expand_isr(t: Any) -> Step:
    """``LeaderExpandIsr`` with the generation's ``isr_rule``, fencing and epoch-start wait."""
    lay = t.layout
    base, members, bit, all_mask, qi_i = lay.base, lay.members, lay.bit, lay.all_mask, lay.q_isr
    caught, mult = caught_up_table(t, t.generation.isr_rule)
    fenced = t.generation.fenced
    waits = t.generation.expand_waits_for_epoch_start and not t.options.expand_before_epoch_start
    reached = hw_reached_current_epoch(t)
    acts = t.actions.expand
    leader_block = true_leader(t)

    def step(s: tuple, out: list) -> None:
        b = leader_block(s)
        if b < 0 or (waits and not reached(s, b)):
            return
        leader, epoch = s[b + LEADER], s[b + EPOCH]
        isr, hw, log = s[b + ISR], s[b + HW], s[b]
        row = log * mult
        for r in members[all_mask & ~isr]:
            rb = base[r]
            # IsFollowerCaughtUp(leader, r, high watermark)
            if s[rb + LEADER] == leader and (not fenced or s[rb + EPOCH] == epoch) and caught[row + s[rb]] >> hw & 1:
                out.append((acts[leader][r], quorum_update(s, b, qi_i, isr | bit[r])))

    return step


def leader_inc_high_watermark(t: Any) -> Step:
    """``LeaderIncHighWatermark`` with the generation's ``hw_rule``, fencing and literal quirks."""
    lay = t.layout
    base, members = lay.base, lay.members
    length, records, epochs = t.logs.length, t.logs.records, t.logs.epochs
    gen = t.generation
    caught, mult = caught_up_table(t, gen.hw_rule)
    fenced, vacuous = gen.fenced, gen.hw_vacuous_with_empty_isr
    bound = t.config.log_size if gen.hw_bound == "log-size" else -1
    acts = t.actions.inc_hw
    acked_i = t.fields.acked
    blocks, live, dead_i = running(t)
    acks_all, min_isr = t.options.acks == "all", t.options.min_insync_replicas
    popcount = tuple(bin(m).count("1") for m in range(1 << lay.n))

    def step(s: tuple, out: list) -> None:
        for leader, b in (live[s[dead_i]] if live else blocks):
            hw, log = s[b + HW], s[b]
            if hw >= (bound if bound >= 0 else length[log]):
                continue
            presumes = s[b + LEADER] == leader
            isr = s[b + ISR]
            if not presumes and (isr or not vacuous):
                continue
            epoch = s[b + EPOCH]
            row, end = log * mult, hw + 1
            for f in members[isr]:
                fb = base[f]
                # IsFollowerCaughtUp(leader, f, hw + 1)
                if s[fb + LEADER] != leader or (fenced and s[fb + EPOCH] != epoch) \
                        or not caught[row + s[fb]] >> end & 1:
                    break
            else:
                nxt = s[: b + HW] + (end,) + s[b + HW + 1 :]
                if acks_all and presumes and popcount[isr] >= min_isr:
                    record_id = records[log][hw] // epochs
                    nxt = nxt[:acked_i] + (nxt[acked_i] | 1 << record_id,) + nxt[acked_i + 1 :]
                out.append((acts[leader][end], nxt))

    return step
