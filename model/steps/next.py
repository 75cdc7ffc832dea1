"""The generation's ``Next`` as one successor function, built once per configuration.

Every classic step (``ControllerElectLeader`` ... ``FollowerUpdateHighWatermark``; what each models
is in the docstrings of ``isrcheck.model.steps.controller``, ``leader`` and ``follower``) is one section of
``successors`` below, in ``NEXT_ORDER``. A generation's ``Next`` (``isrcheck.model.generations``) names which
sections run; the rules it reads (``isr_rule``, ``fenced``, ``truncate_to``...) and the options
that change a step (stopped brokers, acks, flushed offsets) are looked up when the function is
built, so the hot path tests build-time booleans only. The steps the options add
(``isrcheck.model.steps.failures``, ``consumers``) follow as closures of their own.

Why one function (issue 15): the steps were closures called one after another on every state,
each reading the same fields again and testing its own enabling condition. Here what several
steps need is read once per state: the newest request epoch and whether any replica is behind it
(``BecomeLeader``, ``BecomeFollowerAndTruncateTo`` and ``BecomeFollower`` are disabled in most
states: every replica has seen the newest request), the true leader (``LeaderExpandIsr``,
``LeaderShrinkIsr``), the running replicas, and the fetches that diverge (``FollowerTruncate``,
``FollowerUpdateHighWatermark``); next states are built by assigning into a list, which costs
about half of slicing and concatenating tuples. The successors and their order are exactly those
the per-step closures gave, in every generation and option (``tests/model/test_successor_digest.py``
holds digests recorded before the change).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..encoding.state import EPOCH, FIELDS_PER_REPLICA, HW, ISR, LEADER
from ..generations import HEAD
from .controller import NamedRequests
from .rules import caught_up_table
from .truncation import FOLLOWER_HW, first_mismatch_table, truncation_table

# Every step a generation's Next may name, in the one order the sections below run: each
# generation's Next is this order with some steps left out.
NEXT_ORDER = (*HEAD, "BecomeFollowerAndTruncateTo", "BecomeFollower", "FollowerReplicate", "FollowerTruncate",
              "FollowerUpdateHighWatermark")

Successors = Callable[[tuple], list]


def next_successors(t: Any, extra_steps: tuple = ()) -> Successors:
    """``successors(state)``: every (action, next state) of the generation's ``Next``, in its order,
    then those of ``extra_steps`` (the options' steps, ``step(state, out)``)."""
    gen = t.generation
    names = tuple(gen.next)
    if tuple(name for name in NEXT_ORDER if name in names) != names:
        raise ValueError(f"generation {gen.name}: Next {names} is not in the order of NEXT_ORDER {NEXT_ORDER}")
    elect, shrink_by_controller = "ControllerElectLeader" in names, "ControllerShrinkIsr" in names
    become_leader = "BecomeLeader" in names
    expand, shrink = "LeaderExpandIsr" in names, "LeaderShrinkIsr" in names
    write, inc_hw = "LeaderWrite" in names, "LeaderIncHighWatermark" in names
    follow_truncate, follow = "BecomeFollowerAndTruncateTo" in names, "BecomeFollower" in names
    replicate, truncate = "FollowerReplicate" in names, "FollowerTruncate" in names
    update_hw = "FollowerUpdateHighWatermark" in names

    lay, logs, opts = t.layout, t.logs, t.options
    n, base, bit, members, all_mask, replicas = lay.n, lay.base, lay.bit, lay.members, lay.all_mask, lay.replicas
    nr_i, ql_i, qi_i, rq_i = lay.next_record_id, lay.q_leader, lay.q_isr, lay.requests_i
    # Every replica's leader epoch, and the leader it presumes, as one slice each of the state.
    epoch_slice = slice(EPOCH, lay.g, FIELDS_PER_REPLICA)
    leader_slice = slice(LEADER, lay.g, FIELDS_PER_REPLICA)
    max_epoch, max_records, log_size = t.config.max_leader_epoch, t.config.max_records, t.config.log_size
    length, pow_, records, epoch_at, epochs = logs.length, logs.pow, logs.records, logs.epoch_at, logs.epochs
    log_count = logs.size
    fenced, matches_last_epoch = gen.fenced, gen.fetch_matches_last_epoch
    waits = gen.expand_waits_for_epoch_start and not opts.expand_before_epoch_start
    vacuous = gen.hw_vacuous_with_empty_isr
    hw_bound = t.config.log_size if gen.hw_bound == "log-size" else -1
    isr_caught, isr_mult = caught_up_table(t, gen.isr_rule)
    hw_caught, hw_mult = caught_up_table(t, gen.hw_rule)
    truncate_to = truncation_table(t) if follow_truncate else None
    first_mismatch = first_mismatch_table(t) if truncate else None
    named = NamedRequests(n)
    dead_i, acked_i, flushed_i = t.fields.dead, t.fields.acked, t.fields.flushed
    stops = dead_i >= 0
    blocks, running_blocks = lay.blocks, lay.running_blocks
    ack_on_append, acks_all = opts.acks == "1", opts.acks == "all"
    min_isr = opts.min_insync_replicas if acks_all else 0
    popcount = tuple(bin(m).count("1") for m in range(1 << n))
    a = t.actions  # the actions, created once (isrcheck.model.actions.ActionTable), bound to locals below
    elect_acts, controller_shrink_acts, become_leader_acts = a.elect, a.controller_shrink, a.become_leader
    expand_acts, shrink_acts, write_acts, inc_hw_acts = a.expand, a.shrink, a.write, a.inc_hw
    follow_truncate_acts, follow_acts, replicate_acts = a.follow_truncate, a.follow, a.replicate
    follower_truncate_acts, update_hw_acts = a.follower_truncate, a.update_hw

    def successors(s: tuple) -> list:
        out: list = []
        reqs = s[rq_i]
        next_epoch = len(reqs)  # nextLeaderEpoch; the newest request has epoch next_epoch - 1
        dead = s[dead_i] if stops else 0
        running = running_blocks[dead] if stops else blocks
        # The lowest leader epoch of any replica: a request no replica is behind enables nothing.
        epoch_of, leader_of = s[epoch_slice], s[leader_slice]
        lowest = min(epoch_of)
        behind = lowest < next_epoch - 1

        # -- the controller (isrcheck.model.steps.controller): a new request, within MaxLeaderEpoch
        if next_epoch <= max_epoch and (elect or shrink_by_controller):
            ql, qi = s[ql_i], s[qi_i]
            if elect:  # ControllerElectLeader
                for new_leader in members[qi]:
                    if new_leader != ql and not dead & bit[new_leader]:
                        request = ((new_leader + 1) << n) | qi
                        nxt = list(s)
                        nxt[ql_i:rq_i + 1] = new_leader, qi, reqs + (request,)
                        out.append((elect_acts[new_leader][next_epoch], tuple(nxt)))
            if shrink_by_controller:  # ControllerShrinkIsr
                for r in replicas:
                    if ql == r:
                        # The leader fails: leaderless; it stays in the ISR only if it is the sole member.
                        new_leader, new_isr = -1, (qi if qi == bit[r] else qi & ~bit[r])
                    elif qi & bit[r]:
                        new_leader, new_isr = ql, qi & ~bit[r]
                    else:
                        continue
                    request = ((new_leader + 1) << n) | new_isr
                    nxt = list(s)
                    nxt[ql_i:rq_i + 1] = new_leader, new_isr, reqs + (request,)
                    out.append((controller_shrink_acts[r][next_epoch], tuple(nxt)))

        # -- BecomeLeader: a replica named by a newer request adopts it
        if become_leader and behind:
            for epoch, leader, isr in named[reqs]:
                b = base[leader]
                if epoch > epoch_of[leader] and not dead & bit[leader]:
                    nxt = list(s)
                    nxt[b + EPOCH: b + ISR + 1] = epoch, leader, isr
                    out.append((become_leader_acts[leader][epoch], tuple(nxt)))

        # -- the true leader's ISR changes (isrcheck.model.steps.leader). IsTrueLeader: only the quorum
        # leader can be it, when it presumes leadership at the quorum's epoch and runs.
        if expand or shrink:
            leader = s[ql_i]
            if leader >= 0 and leader_of[leader] == leader and epoch_of[leader] == next_epoch - 1 \
                    and not dead & bit[leader]:
                b = base[leader]
                epoch, isr, hw, log = epoch_of[leader], s[b + ISR], s[b + HW], s[b]
                end, row = length[log], log * isr_mult
                # HasHighWatermarkReachedCurrentEpoch: the HW is the log end, or its record has this epoch.
                if expand and (not waits or hw == end or (hw < end and epoch_at[log][hw] == epoch)):
                    for r in members[all_mask & ~isr]:  # LeaderExpandIsr
                        # IsFollowerCaughtUp(leader, r, high watermark)
                        if leader_of[r] == leader and (not fenced or epoch_of[r] == epoch) \
                                and isr_caught[row + s[base[r]]] >> hw & 1:
                            nxt = list(s)  # QuorumUpdateLeaderAndIsr: the cached and the quorum ISR
                            nxt[b + ISR] = nxt[qi_i] = isr | bit[r]
                            out.append((expand_acts[leader][r], tuple(nxt)))
                if shrink:
                    for r in members[isr]:  # LeaderShrinkIsr
                        if r == leader:
                            continue
                        # not IsFollowerCaughtUp(leader, r, end offset)
                        if leader_of[r] != leader or (fenced and epoch_of[r] != epoch) \
                                or not isr_caught[row + s[base[r]]] >> end & 1:
                            nxt = list(s)
                            nxt[b + ISR] = nxt[qi_i] = isr & ~bit[r]
                            out.append((shrink_acts[leader][r], tuple(nxt)))

        # -- LeaderWrite (isrcheck.model.steps.controller): a presumed leader appends the next record
        record_id = s[nr_i]
        if write and record_id < max_records:
            for r, b in running:
                if leader_of[r] == r:
                    log = s[b]
                    k = length[log]
                    if k < log_size:
                        if min_isr and popcount[s[b + ISR]] < min_isr:
                            continue  # acks=all: NotEnoughReplicasException, the produce request is refused
                        epoch = epoch_of[r]
                        nxt = list(s)
                        nxt[b] = log + (record_id * epochs + epoch + 1) * pow_[k]
                        nxt[nr_i] = record_id + 1
                        if ack_on_append:  # acks=1: acknowledged on the leader's append
                            nxt[acked_i] |= 1 << record_id
                        out.append((write_acts[r][record_id][epoch][k], tuple(nxt)))

        # -- LeaderIncHighWatermark (isrcheck.model.steps.leader), with the generation's literal quirks
        if inc_hw:
            for leader, b in running:
                hw, log = s[b + HW], s[b]
                if hw >= (hw_bound if hw_bound >= 0 else length[log]):
                    continue
                presumes = leader_of[leader] == leader
                isr = s[b + ISR]
                if not presumes and (isr or not vacuous):
                    continue
                epoch = epoch_of[leader]
                row, end = log * hw_mult, hw + 1
                for f in members[isr]:
                    # IsFollowerCaughtUp(leader, f, hw + 1)
                    if leader_of[f] != leader or (fenced and epoch_of[f] != epoch) \
                            or not hw_caught[row + s[base[f]]] >> end & 1:
                        break
                else:
                    nxt = list(s)
                    nxt[b + HW] = end
                    if acks_all and presumes and popcount[isr] >= min_isr:
                        nxt[acked_i] |= 1 << records[log][hw] // epochs
                    out.append((inc_hw_acts[leader][end], tuple(nxt)))

        # -- BecomeFollowerAndTruncateTo (isrcheck.model.steps.follower, isrcheck.model.steps.truncation)
        if follow_truncate and behind:
            for epoch, leader, isr in named[reqs]:
                if epoch <= lowest:
                    continue  # every replica has seen this request
                if fenced and (leader_of[leader] != leader or epoch_of[leader] != epoch):
                    continue  # the named leader must already lead at this epoch
                row = s[base[leader]] * log_count
                for r, b in running:
                    if r == leader or epoch <= epoch_of[r]:
                        continue
                    log, hw = s[b], s[b + HW]
                    off = truncate_to[row + log]
                    if off == FOLLOWER_HW:
                        off = hw
                    if off > length[log]:
                        continue  # TruncateTo(replica, off) requires off <= end offset
                    nxt = list(s)
                    nxt[b: b + ISR + 1] = log % pow_[off], off if off < hw else hw, epoch, leader, isr
                    if flushed_i >= 0 and nxt[flushed_i + r] > off:
                        nxt[flushed_i + r] = off  # the recovery point never exceeds the log end
                    out.append((follow_truncate_acts[r][leader][epoch][off], tuple(nxt)))

        # -- BecomeFollower: adopt a newer request naming another leader, keeping log and HW
        if follow and behind:
            for epoch, leader, isr in named[reqs]:
                if epoch <= lowest:
                    continue
                for r, b in running:
                    if r != leader and epoch > epoch_of[r]:
                        nxt = list(s)
                        nxt[b + EPOCH: b + ISR + 1] = epoch, leader, isr
                        out.append((follow_acts[r][leader][epoch], tuple(nxt)))

        # -- FollowerReplicate: every running follower whose leader answers its fetch (the leader
        # presumes leadership and, fenced, is at the follower's epoch). The fetches whose logs
        # diverge are kept for FollowerTruncate and FollowerUpdateHighWatermark, in this order.
        if replicate or truncate or update_hw:
            diverging = []
            for f, fb in running:
                leader = leader_of[f]
                if leader < 0 or leader == f or leader_of[leader] != leader \
                        or (fenced and epoch_of[leader] != epoch_of[f]):
                    continue
                lb = base[leader]
                log, leader_log = s[fb], s[lb]
                k, leader_end = length[log], length[leader_log]
                # FollowerNeedsTruncation: longer than the leader's log, or a different last epoch.
                diverges = k > leader_end or (k > 0 and epoch_at[leader_log][k - 1] != epoch_at[log][k - 1])
                if diverges and (truncate or update_hw):
                    diverging.append((f, fb, leader, lb))
                if not replicate or k >= leader_end:
                    continue
                if matches_last_epoch and diverges:
                    continue  # diverging: the follower must truncate first
                leader_hw = s[lb + HW]
                nxt = list(s)
                nxt[fb] = log + (records[leader_log][k] + 1) * pow_[k]
                nxt[fb + HW] = leader_hw if leader_hw < k + 1 else k + 1
                out.append((replicate_acts[f][leader][k], tuple(nxt)))
            if truncate:  # FollowerTruncate: to the last offset holding the leader's record
                for f, fb, leader, lb in diverging:
                    log = s[fb]
                    off = first_mismatch[s[lb] * log_count + log]
                    hw = s[fb + HW]
                    nxt = list(s)
                    nxt[fb] = log % pow_[off]
                    nxt[fb + HW] = off if off < hw else hw
                    if flushed_i >= 0 and nxt[flushed_i + f] > off:
                        nxt[flushed_i + f] = off
                    out.append((follower_truncate_acts[f][leader][off], tuple(nxt)))
            if update_hw:  # K13: the diverging response's HW applied before truncating
                for f, fb, leader, lb in diverging:
                    k = length[s[fb]]
                    leader_hw = s[lb + HW]
                    hw = leader_hw if leader_hw < k else k  # UnifiedLog.updateHighWatermark caps at the log end
                    if hw != s[fb + HW]:
                        nxt = list(s)
                        nxt[fb + HW] = hw
                        out.append((update_hw_acts[f][leader][hw], tuple(nxt)))

        for step in extra_steps:
            step(s, out)
        return out

    return successors
