"""Leader and follower steps of ``KafkaReplication.tla`` used by the pre-KIP-320 generations
(``KafkaTruncateToHighWatermark``, ``Kip101``, ``Kip279``).

Modelled:

- ``LeaderShrinkIsr``: the true leader drops a follower that has not reached its log end offset
  (``replica.lag.time.max.ms`` expiry), writing the new ISR to the quorum (zkVersion fencing
  assumed correct).
- ``LeaderExpandIsr``: the true leader re-admits a follower that has reached its high watermark.
- ``LeaderIncHighWatermark``: the old HW rule: a presumed leader advances its HW when every member
  of its cached ISR acknowledges it as leader and holds the offset (no epoch check).
- ``BecomeFollowerAndTruncateTo``: a replica adopts a LeaderAndIsr request of a higher epoch naming
  another replica leader, truncates its log to a generation-specific offset (``model.truncation``)
  and caps its HW there. The step is disabled when that offset lies beyond its log end, as
  ``FiniteReplicatedLog!TruncateTo`` requires.
- ``FollowerReplicate``: a follower fetches the next record from the replica it follows, if that
  replica presumes leadership (no epoch fencing), and takes ``min(leader HW, its new end offset)``.

Abstracted away: fetch requests and responses as messages (a fetch is one atomic step), fetch
sessions, timing of the lag check (any lagging follower may be dropped at any time).
"""

from __future__ import annotations

from collections.abc import Callable

from .common import Step, quorum_update, true_leader_blocks
from .state import EPOCH, HW, ISR, LEADER, REQUESTS
from .tables import ModelTables

# (state, leader index, replica index, replica block offset) -> truncation offset
TruncationOffset = Callable[[tuple, int, int, int], int]
# (state, leader, leader log code, follower block, follower end offset) -> may the follower fetch?
FetchGuard = Callable[[tuple, int, int, int, int], bool]


def leader_shrink_isr(t: ModelTables) -> Step:
    g = t.layout.g
    rq_i = g + REQUESTS
    ql_i = g + 1
    length = t.logs.length
    members = t.layout.members
    base = t.layout.base
    bit = t.layout.bit
    acts = t.actions.shrink
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        ql = s[ql_i]
        if ql < 0:
            return
        for leader, b in blocks:
            # IsTrueLeader(leader)
            if leader != ql or s[b + LEADER] != leader or s[b + EPOCH] != len(s[rq_i]) - 1:
                continue
            isr = s[b + ISR]
            end = length[s[b]]
            for r in members[isr]:
                if r == leader:
                    continue
                rb = base[r]
                # IsFollowerCaughtUp(leader, r, leader end offset)
                caught_up = s[rb + LEADER] == leader and (end == 0 or length[s[rb]] >= end)
                if not caught_up:
                    out.append((acts[leader][r], quorum_update(s, b, g, isr & ~bit[r])))

    return step


def leader_expand_isr(t: ModelTables) -> Step:
    g = t.layout.g
    rq_i = g + REQUESTS
    ql_i = g + 1
    length = t.logs.length
    members = t.layout.members
    all_mask = t.layout.all_mask
    base = t.layout.base
    bit = t.layout.bit
    acts = t.actions.expand
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        ql = s[ql_i]
        if ql < 0:
            return
        for leader, b in blocks:
            if leader != ql or s[b + LEADER] != leader or s[b + EPOCH] != len(s[rq_i]) - 1:
                continue
            isr = s[b + ISR]
            hw = s[b + HW]
            leader_len = length[s[b]]
            for r in members[all_mask & ~isr]:
                rb = base[r]
                # IsFollowerCaughtUp(leader, r, leader HW)
                if s[rb + LEADER] == leader and (hw == 0 or (hw <= leader_len and hw <= length[s[rb]])):
                    out.append((acts[leader][r], quorum_update(s, b, g, isr | bit[r])))

    return step


def leader_inc_high_watermark(t: ModelTables) -> Step:
    log_size = t.config.log_size
    length = t.logs.length
    members = t.layout.members
    base = t.layout.base
    acts = t.actions.inc_hw
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        for leader, b in blocks:
            if s[b + LEADER] != leader:
                continue
            hw = s[b + HW]
            if hw >= log_size:
                continue
            for f in members[s[b + ISR]]:
                fb = base[f]
                if s[fb + LEADER] != leader or length[s[fb]] <= hw:
                    break
            else:
                out.append((acts[leader][hw + 1], s[: b + HW] + (hw + 1,) + s[b + HW + 1 :]))

    return step


def become_follower_and_truncate(t: ModelTables, truncation_offset: TruncationOffset, *, fenced: bool = False) -> Step:
    """``BecomeFollowerAndTruncateTo``: a replica applies a newer LeaderAndIsr request naming
    another leader and truncates where its generation's ``truncation_offset`` says.

    fenced: KIP-320's OffsetsForLeaderEpoch carries the leader epoch, so the named replica must
        already lead at that epoch before the follower can take the request and truncate.
    """
    n = t.layout.n
    base = t.layout.base
    rq_i = t.layout.g + REQUESTS
    mask = t.layout.all_mask
    length = t.logs.length
    pow_ = t.logs.pow
    acts = t.actions.follow_truncate
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        for epoch, request in enumerate(s[rq_i]):
            leader = (request >> n) - 1
            if leader < 0:
                continue
            if fenced:
                lb = base[leader]
                if s[lb + LEADER] != leader or s[lb + EPOCH] != epoch:
                    continue  # the named leader must already lead at this epoch
            isr = request & mask
            for r, b in blocks:
                if r == leader or epoch <= s[b + EPOCH]:
                    continue
                off = truncation_offset(s, leader, r, b)
                log = s[b]
                if off > length[log]:
                    continue  # TruncateTo(replica, off) requires off <= end offset
                hw = s[b + HW]
                nxt = s[:b] + (log % pow_[off], off if off < hw else hw, epoch, leader, isr) + s[b + 5 :]
                out.append((acts[r][leader][epoch][off], nxt))

    return step


def follower_replicate(t: ModelTables, *, fenced: bool = False, may_fetch: FetchGuard | None = None) -> Step:
    """``FollowerReplicate``: a follower fetches the next record from the replica it presumes
    leads, which must itself presume leadership, and takes the leader's HW capped at its new end.

    fenced: KIP-320's fetch carries the follower's current leader epoch and a leader in another
        epoch refuses it (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH), so the two epochs must match.
    may_fetch: a further per-generation enabling condition (the rejected KIP-320 draft's "caught up
        to the leader epoch" check), called as ``may_fetch(s, leader, leader_log, fb, k)``.
    """
    length = t.logs.length
    records = t.logs.records
    pow_ = t.logs.pow
    base = t.layout.base
    acts = t.actions.replicate
    blocks = true_leader_blocks(t)

    def step(s: tuple, out: list) -> None:
        for f, fb in blocks:
            leader = s[fb + LEADER]
            if leader < 0 or leader == f:
                continue
            lb = base[leader]
            if s[lb + LEADER] != leader or (fenced and s[lb + EPOCH] != s[fb + EPOCH]):
                continue
            log = s[fb]
            k = length[log]
            leader_log = s[lb]
            if k >= length[leader_log] or (may_fetch is not None and not may_fetch(s, leader, leader_log, fb, k)):
                continue
            new_log = log + (records[leader_log][k] + 1) * pow_[k]
            leader_hw = s[lb + HW]
            hw = leader_hw if leader_hw < k + 1 else k + 1
            out.append((acts[f][leader][k], s[:fb] + (new_log, hw) + s[fb + 2 :]))

    return step
