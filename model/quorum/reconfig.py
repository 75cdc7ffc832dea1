"""KIP-853's dynamic voters for the quorum model (``--max-reconfigs``), after KRaftWithReconfig.tla
(Vanlightly/raft-tlaplus, ``specifications/pull-raft``) and kafka-tlaplus ``kraft/kip_853``.

What is modelled, as the specs have it:

- the voter set is a log entry (``config_value``: a negative value holding the set as a bit mask);
  a server uses the newest voter-set entry in its log, committed or not, and goes back to the
  previous one when a truncation removes it (``newest_config``);
- a server is a Voter when it is in its own voter set, else an Observer, which only fetches: it
  cannot stand for election, count votes or accept BeginQuorum; an Unattached observer fetches
  from any voter it knows to learn the leader (``QuorumSteps.send_fetch_request``);
- the leader adds or removes one voter at a time (``AddVoter``, ``RemoveVoter``), only with no
  voter-set entry of its own uncommitted and once it has committed an entry of its epoch
  (KRaftWithReconfig's fix of the Raft thesis's single-server bug);
- elections and the high watermark count over the voter set (``new_high_watermark``), a fetch
  from an observer does not count; a leader that removed itself keeps leading, not counting
  itself, until the entry commits, then resigns (Unattached, no leader: ``removed_by``);
- a follower that leaves or enters the voter set by a fetch becomes a Follower in its new role
  (``MaybeSwitchConfigurations``).

What is abstracted, and why (docs/quorum.md): the cluster starts as KRaftWithReconfig's ``Init``
(server 1 leads epoch 1, the voters' logs hold the committed initial voter set), and a joining
server starts as a Follower of server 1 with an empty log, which KRaftWithReconfig reaches by
``StartNewServer`` and a rejected first fetch (two steps, folded into ``Init``); AddVoter is the
administrator's request to the leader (kip_853), not the joiner's JoinRequest; server identities
(disk ids), restarts without state and ``MaxClusterSize`` are left out; the leader may remove
voters down to one.

The pitfalls (``reconfig_rule``): ``two-at-once`` lets a leader replace a voter by another in one
entry, so that the old and the new voter sets have disjoint majorities; ``before-epoch-commit``
drops the wait for a committed entry of the leader's epoch; ``ignore-non-voters`` makes the leader
leave unanswered a fetch from a voter outside its voter set (``QuorumSteps.accept_fetch_request``),
which KRaftWithReconfig says leaves a reconfiguration stuck.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .actions import QuorumAction
from .fields import (
    END_OFFSET,
    EPOCH,
    FOLLOWER,
    HW,
    LEADER,
    LEADER_ID,
    LOG,
    NIL,
    STATE,
    UNATTACHED,
    VOTES_GRANTED,
    Layout,
)
from .messages import config_value, entry_name


def newest_config(log: tuple) -> tuple[int, int]:
    """``MostRecentReconfigEntry``: (voter mask, offset) of the newest voter-set entry; (0, 0) when
    the log has none (a server that never fetched: the spec's ``NoConfig``)."""
    for k in range(len(log) - 1, -1, -1):
        v = log[k][1]
        if v < 0:
            return -1 - v, k + 1
    return 0, 0


def new_high_watermark(log: tuple, me: int, epoch: int, hw: int, end_offsets: tuple, members: tuple) -> int:
    """``NewHighwaterMark`` of KRaftWithReconfig: the highest offset a majority of the voter set has
    reached (the leader counted only when it is in the set), if its entry is of the leader's epoch;
    else the high watermark unchanged."""
    size = len(members)
    mine = 1 if me in members else 0
    for offset in range(len(log), 0, -1):
        agree = mine + sum(1 for k in members if k != me and end_offsets[k] >= offset)
        if agree * 2 > size:
            return offset if log[offset - 1][0] == epoch else hw
    return hw


def removed_by(log: tuple, me: int, hw: int, new_hw: int) -> bool:
    """``IsRemovedFromCluster``: an entry the new high watermark commits is a voter set without ``me``."""
    return any(v < 0 and not (-1 - v) >> me & 1 for _, v in log[hw:new_hw])


def _two_words(mask: int, a: int, b: int) -> str:
    """Two servers flipped at once, in words: ``remove 2 and 3``, ``add 3 and 4``, ``remove 2, add 4``."""
    gone = [k + 1 for k in (a, b) if mask >> k & 1]
    new = [k + 1 for k in (a, b) if not mask >> k & 1]
    words = []
    if gone:
        words.append("remove " + " and ".join(map(str, gone)))
    if new:
        words.append("add " + " and ".join(map(str, new)))
    return ", ".join(words)


class Reconfig:
    """The reconfiguration's state (the counter's position), guards and steps for one configuration."""

    def __init__(self, config: Any, layout: Layout) -> None:
        self.layout = layout
        self.max = config.max_reconfigs
        self.rule = config.reconfig_rule
        self.initial_mask = (1 << config.voters) - 1
        self.voters = config.voters

    # -- the initial state -------------------------------------------------------------------------

    def init_state(self, values: int) -> tuple:
        """KRaftWithReconfig's ``Init``: server 1 leads epoch 1, the voters follow it, every voter's log
        holds the initial voter set, committed; joining servers follow server 1 with an empty log."""
        lay = self.layout
        first = ((1, config_value(self.initial_mask)),)
        ends = tuple(1 if k < self.voters else 0 for k in lay.servers)
        blocks: list = []
        for i in lay.servers:
            if i < self.voters:
                state = LEADER if i == 0 else FOLLOWER
                blocks += [1, state, NIL, 0, (), first, 1, 0, ends]
            else:
                blocks += [1, FOLLOWER, NIL, 0, (), (), 0, 0, (0,) * lay.n]
        return tuple(blocks) + ((), (0,) * values, 0, 0, 0)

    # -- what the steps read -----------------------------------------------------------------------

    def members(self, s: tuple, i: int) -> tuple[int, ...]:
        """The servers of ``i``'s voter set."""
        return self.layout.members[newest_config(s[self.layout.base[i] + LOG])[0]]

    def is_voter(self, s: tuple, i: int) -> bool:
        return bool(newest_config(s[self.layout.base[i] + LOG])[0] >> i & 1)

    def switched(self, t: list, i: int, old_log: tuple) -> None:
        """``MaybeSwitchConfigurations`` after ``i``'s log changed from ``old_log`` (``t`` holds the new
        one): a server that leaves or enters its voter set becomes a Follower in its new role."""
        o = self.layout.base[i]
        before = newest_config(old_log)[0] >> i & 1
        after = newest_config(t[o + LOG])[0] >> i & 1
        if before != after:
            t[o + STATE] = FOLLOWER

    def resign(self, t: list, i: int) -> None:
        """The leader's removal committed: it resigns, an Unattached observer with no leader (its
        vote stays, as in the spec)."""
        o = self.layout.base[i]
        t[o + STATE], t[o + LEADER_ID], t[o + VOTES_GRANTED] = UNATTACHED, NIL, 0
        t[o + END_OFFSET], t[o + HW] = (0,) * self.layout.n, 0

    def ready(self, s: tuple, i: int) -> tuple[int, int] | None:
        """The leader's voter mask and offset if it may append a voter-set entry: reconfigurations
        left, its own newest voter set committed (``HasPendingConfigCommand``), and an entry of its
        epoch committed (``LeaderHasCommittedOffsetsInCurrentEpoch``; not under ``before-epoch-commit``)."""
        o = self.layout.base[i]
        if s[o + STATE] != LEADER or s[self.layout.reconfigs] >= self.max:
            return None
        log, hw = s[o + LOG], s[o + HW]
        mask, offset = newest_config(log)
        if offset > hw:
            return None
        if self.rule != "before-epoch-commit" and not any(e == s[o + EPOCH] for e, _ in log[:hw]):
            return None
        return mask, offset

    # -- the steps ---------------------------------------------------------------------------------

    def steps(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``AcceptJoinRequest`` (as AddVoter) and ``HandleRemoveRequest`` (RemoveVoter), and under
        ``two-at-once`` ReplaceVoter: the leader appends the new voter set and uses it at once."""
        lay = self.layout
        for i in lay.servers:
            ready = self.ready(s, i)
            if ready is None:
                continue
            mask = ready[0]
            changes: list[tuple[str, int, str]] = []
            for j in lay.servers:
                if mask >> j & 1:
                    if lay.size[mask] > 1:
                        changes.append(("RemoveVoter", mask & ~(1 << j), f"remove {j + 1}"))
                else:
                    changes.append(("AddVoter", mask | 1 << j, f"add {j + 1}"))
            if self.rule == "two-at-once":  # every voter set two changes away: two removed, two added, one replaced
                for a in lay.servers:
                    for b in lay.servers[a + 1:]:
                        both = mask ^ (1 << a | 1 << b)
                        if both:
                            changes.append(("ChangeVoters", both, _two_words(mask, a, b)))
                for out in lay.members[mask]:
                    for new in lay.servers:
                        if not mask >> new & 1:
                            changes.append(("ChangeVoters", mask & ~(1 << out) | 1 << new,
                                            f"remove {out + 1}, add {new + 1}"))
            o = lay.base[i]
            for name, new_mask, words in changes:
                t = list(s)
                value = config_value(new_mask)
                t[o + LOG] = s[o + LOG] + ((s[o + EPOCH], value),)
                t[lay.reconfigs] += 1
                yield QuorumAction(name, i + 1, epoch=s[o + EPOCH], detail=f"{words}: {entry_name(value)}"), tuple(t)
