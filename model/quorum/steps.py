"""The actions of KRaft.tla's ``Next``, one method each, in the order of its disjuncts.

Each method yields ``(action, next_state)`` for every binding that enables it: servers in order,
messages in the bag's order. A state is the flat tuple of ``isrcheck.model.quorum.fields``. The
helpers ``_maybe_transition`` and ``_common_response`` are the spec's ``MaybeTransition`` and
``MaybeHandleCommonResponse``: each returns ``(state, epoch, leader)`` (and whether the response
was handled), IllegalState included where the spec sets it.

What is modelled as the spec has it, including what a reader may not expect: a restarted server
becomes a Follower that knows no leader (``Restart``; ``--restart persisted`` is the one
departure from the spec, an option), and a server that votes keeps ``votedFor``
across later epochs; ``docs/quorum.md`` says where that leads.

With ``--max-reconfigs`` the steps read KIP-853's voter sets (``isrcheck.model.quorum.reconfig``,
``self.rc``): elections, BeginQuorum and the high watermark over the server's voter set, observers'
fetches, the leader's resignation once its removal commits; without it ``self.rc`` is None and
every step is KRaft.tla's as before.

Abstracted away: message duplication and loss (commented out of the spec's ``Next``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import messages as msg
from .actions import QuorumAction
from .fields import (
    ACKED,
    ACKED_FIELD,
    CANDIDATE,
    ELECTIONS,
    END_OFFSET,
    EPOCH,
    FOLLOWER,
    HW,
    ILLEGAL,
    LEADER,
    LEADER_ID,
    LOG,
    MESSAGES,
    NIL,
    PENDING,
    PENDING_FETCH,
    RESTARTS,
    STATE,
    UNATTACHED,
    UNWRITTEN,
    VOTED,
    VOTED_FOR,
    VOTES_GRANTED,
    Layout,
)
from .raftlog import (
    compare_entries,
    end_offset_for_epoch,
    highest_common_offset,
    last_epoch,
    new_high_watermark,
    valid_fetch_position,
)
from .reconfig import Reconfig, removed_by
from .reconfig import new_high_watermark as reconfig_high_watermark

ILLEGAL_TRIPLE = (ILLEGAL, 0, NIL)  # SetIllegalState: [state |-> IllegalState, epoch |-> 0, leader |-> Nil]
VALUES = "ABCDEFGH"

# An action's words name every field of the message it handles that can tell two messages of the
# same route and epoch apart, so that no two successors of a state print alike (replay finds a step
# by its action's repr).


def _position(fetch: tuple) -> str:
    """A FetchRequest's position: ``offset 1, lastFetchedEpoch 2`` (and ``, observer`` for an observer's)."""
    return f"offset {fetch[2]}, lastFetchedEpoch {fetch[3]}" + (", observer" if fetch[6:] == (1,) else "")


def _response_words(granted: int, leader: int, error: int) -> str:
    """A vote response: granted or refused, the leader it names, its error."""
    words = "granted" if granted else "refused"
    if leader != NIL:
        words += f", leader {leader + 1}"
    return words + ("" if error == NIL else f", {msg.ERROR_NAMES[error]}")


class QuorumSteps:
    """The successor function for one configuration (``isrcheck.model.quorum.config.QuorumConfig``)."""

    def __init__(self, config: Any, layout: Layout) -> None:
        self.config = config
        self.layout = layout
        self.n = layout.n
        self.values = range(config.values)
        self.zero_offsets = (0,) * layout.n
        self.rc = Reconfig(config, layout) if config.reconfig else None

    # -- helpers --------------------------------------------------------------------------------------

    def _get(self, s: tuple, i: int, field: int) -> Any:
        return s[self.layout.base[i] + field]

    def _consistent_leader(self, s: tuple, i: int, leader_id: int, epoch: int) -> bool:
        """``HasConsistentLeader``."""
        o = self.layout.base[i]
        if leader_id == i:
            if self.rc is not None and epoch == s[o + EPOCH] and not self.rc.is_voter(s, i):
                return True  # KRaftWithReconfig: a leader removed in this epoch hears of its own leadership
            return s[o + STATE] == LEADER
        return epoch != s[o + EPOCH] or leader_id == NIL or s[o + LEADER_ID] == NIL or s[o + LEADER_ID] == leader_id

    def _to_follower(self, s: tuple, i: int, leader_id: int, epoch: int) -> tuple[int, int, int]:
        """``TransitionToFollower``."""
        o = self.layout.base[i]
        if s[o + EPOCH] == epoch and s[o + STATE] in (FOLLOWER, LEADER):
            return ILLEGAL_TRIPLE
        return FOLLOWER, epoch, leader_id

    def _maybe_transition(self, s: tuple, i: int, leader_id: int, epoch: int) -> tuple[int, int, int]:
        """``MaybeTransition``: (state, epoch, leader) after learning of ``leader_id`` in ``epoch``."""
        o = self.layout.base[i]
        if not self._consistent_leader(s, i, leader_id, epoch):
            return ILLEGAL_TRIPLE
        if epoch > s[o + EPOCH]:
            return (UNATTACHED, epoch, NIL) if leader_id == NIL else self._to_follower(s, i, leader_id, epoch)
        if leader_id != NIL and s[o + LEADER_ID] == NIL and (self.rc is None or leader_id != i):
            return self._to_follower(s, i, leader_id, epoch)  # KRaftWithReconfig: never a follower of itself
        return s[o + STATE], s[o + EPOCH], s[o + LEADER_ID]

    def _common_response(self, s: tuple, i: int, leader_id: int, epoch: int,
                         error: int) -> tuple[tuple[int, int, int], bool]:
        """``MaybeHandleCommonResponse``: ((state, epoch, leader), handled)."""
        o = self.layout.base[i]
        current = s[o + EPOCH]
        if epoch < current:
            return (s[o + STATE], current, s[o + LEADER_ID]), True
        if epoch > current or error != NIL:
            return self._maybe_transition(s, i, leader_id, epoch), True
        if leader_id != NIL and s[o + LEADER_ID] == NIL:
            return (FOLLOWER, current, leader_id), True
        return (s[o + STATE], current, s[o + LEADER_ID]), False

    def _set(self, s: list, i: int, triple: tuple[int, int, int]) -> None:
        o = self.layout.base[i]
        s[o + STATE], s[o + EPOCH], s[o + LEADER_ID] = triple

    def _receivable(self, s: tuple, kind: int, equal_epoch: bool) -> Iterator[tuple]:
        """``ReceivableMessage``: messages of ``kind`` with a copy to deliver (and, for EqualEpoch, sent
        in the destination's epoch), in the bag's order."""
        base = self.layout.base
        for m, count in s[self.layout.g + MESSAGES]:
            if count > 0 and m[0] == kind and (not equal_epoch or m[1] == s[base[msg.dest(m)] + EPOCH]):
                yield m

    # -- Next -----------------------------------------------------------------------------------------

    def successors(self, s: tuple) -> list[tuple[QuorumAction, tuple]]:
        out: list[tuple[QuorumAction, tuple]] = []
        for step in (self.restart, self.request_vote, self.handle_request_vote_request,
                     self.handle_request_vote_response, self.become_leader, self.client_request,
                     self.reject_fetch_request, self.diverging_fetch_request, self.accept_fetch_request,
                     self.handle_begin_quorum_request, self.send_fetch_request, self.handle_success_fetch_response,
                     self.handle_diverging_fetch_response, self.handle_error_fetch_response):
            out.extend(step(s))
        if self.rc is not None:  # the reconfiguration actions close the spec's Next, as in KRaftWithReconfig
            out.extend(self.rc.steps(s))
        return out

    def restart(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``Restart(i)``: the server keeps its epoch, vote and log, and comes back a Follower that
        knows no leader, with no votes, end offsets, high watermark or pending fetch.

        With ``restart="persisted"`` it comes back in the election state it had, as Kafka restores
        a voter from its quorum-state file (epoch, vote, leader): Voted, a Follower of the same
        leader, Unattached, a Candidate (its own vote only), a Leader of its epoch again (Kafka
        resigns instead, a state the spec lacks; coming back Voted for itself instead lets a response
        that names it leader reach the spec's IllegalState). IllegalState stays illegal. What is
        lost is what the spec loses: votes received, end offsets, the high watermark, the pending
        fetch."""
        g = self.layout.g
        if s[g + RESTARTS] >= self.config.max_restarts:
            return
        persisted = self.config.restart == "persisted"
        for i in self.layout.servers:
            o = self.layout.base[i]
            t = list(s)
            if persisted:
                t[o + VOTES_GRANTED] = 1 << i if s[o + STATE] == CANDIDATE else 0
            else:
                t[o + STATE], t[o + LEADER_ID], t[o + VOTES_GRANTED] = FOLLOWER, NIL, 0
            t[o + END_OFFSET], t[o + HW], t[o + PENDING_FETCH] = self.zero_offsets, 0, ()
            t[g + RESTARTS] += 1
            yield QuorumAction("Restart", i + 1), tuple(t)

    def request_vote(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``RequestVote(i)``: a timeout and the election it starts, one step: the server becomes a
        candidate in the next epoch, votes for itself and asks every other server for its vote."""
        g = self.layout.g
        if s[g + ELECTIONS] >= self.config.max_elections:
            return
        for i in self.layout.servers:
            o = self.layout.base[i]
            if s[o + STATE] not in (FOLLOWER, CANDIDATE, UNATTACHED):
                continue
            peers = self.layout.servers
            if self.rc is not None:  # only a voter stands, and asks its voter set
                peers = self.rc.members(s, i)
                if i not in peers:
                    continue
            epoch, log = s[o + EPOCH] + 1, s[o + LOG]
            requests = [(msg.RVQ, epoch, last_epoch(log), len(log), i, j) for j in peers if j != i]
            bag = msg.send_all_once(s[g + MESSAGES], requests)
            if bag is None:
                continue
            t = list(s)
            t[o + STATE], t[o + EPOCH], t[o + LEADER_ID] = CANDIDATE, epoch, NIL
            t[o + VOTED_FOR], t[o + VOTES_GRANTED], t[o + PENDING_FETCH] = i, 1 << i, ()
            t[g + ELECTIONS] += 1
            t[g + MESSAGES] = bag
            yield QuorumAction("RequestVote", i + 1, epoch=epoch), tuple(t)

    def handle_request_vote_request(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``HandleRequestVoteRequest``: the server grants its vote if the candidate's epoch is not
        older, its last entry not behind, and it has not voted for another in that epoch."""
        g, base = self.layout.g, self.layout.base
        for m in self._receivable(s, msg.RVQ, False):
            _, m_epoch, m_last_epoch, m_last_offset, j, i = m
            o = base[i]
            t = list(s)
            if m_epoch < s[o + EPOCH]:
                response = (msg.RVR, s[o + EPOCH], s[o + LEADER_ID], 0, msg.FENCED_LEADER_EPOCH, i, j)
                granted = False
            else:
                state0 = (UNATTACHED, m_epoch, NIL) if m_epoch > s[o + EPOCH] else (
                    s[o + STATE], s[o + EPOCH], s[o + LEADER_ID])
                log = s[o + LOG]
                log_ok = compare_entries(m_last_offset, m_last_epoch, len(log), last_epoch(log)) >= 0
                granted = log_ok and (state0[0] == UNATTACHED or (state0[0] == VOTED and s[o + VOTED_FOR] == j))
                final = state0
                if granted and state0[0] == UNATTACHED:  # TransitionToVoted: never illegal from Unattached
                    final = (VOTED, m_epoch, NIL)
                self._set(t, i, final)
                if granted:
                    t[o + VOTED_FOR] = j
                if final[0] != s[o + STATE]:
                    t[o + PENDING_FETCH] = ()
                response = (msg.RVR, m_epoch, final[2], int(granted), NIL, i, j)
            bag = msg.reply(s[g + MESSAGES], response, m)
            if bag is None:
                continue
            t[g + MESSAGES] = bag
            yield QuorumAction("HandleRequestVoteRequest", i + 1, j + 1, epoch=m_epoch,
                               detail="granted" if granted else "refused"), tuple(t)

    def handle_request_vote_response(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``HandleRequestVoteResponse``: a candidate counts a granted vote of its epoch; a response of
        a later epoch or with an error moves the server on (``MaybeHandleCommonResponse``)."""
        g, base = self.layout.g, self.layout.base
        for m in self._receivable(s, msg.RVR, False):
            _, m_epoch, m_leader, granted, error, j, i = m
            if self.rc is not None and not self.rc.is_voter(s, i):  # roles change with reconfigurations
                continue
            o = base[i]
            triple, handled = self._common_response(s, i, m_leader, m_epoch, error)
            t = list(s)
            if handled:
                self._set(t, i, triple)
            else:
                if s[o + STATE] != CANDIDATE:
                    continue
                if granted:
                    t[o + VOTES_GRANTED] |= 1 << j
            t[g + MESSAGES] = msg.discard(s[g + MESSAGES], m)
            yield QuorumAction("HandleRequestVoteResponse", i + 1, j + 1, epoch=m_epoch,
                               detail=_response_words(m[3], m_leader, error)), tuple(t)

    def become_leader(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``BecomeLeader(i)``: a candidate with a majority of votes leads and sends BeginQuorum to all."""
        g, lay = self.layout.g, self.layout
        for i in lay.servers:
            o = lay.base[i]
            if s[o + STATE] != CANDIDATE:
                continue
            peers = lay.servers
            if self.rc is None:
                if lay.size[s[o + VOTES_GRANTED]] * 2 <= self.n:
                    continue
            else:  # a quorum of the candidate's voter set
                peers = self.rc.members(s, i)
                votes = sum(1 for k in peers if s[o + VOTES_GRANTED] >> k & 1)
                if votes * 2 <= len(peers) or lay.size[s[o + VOTES_GRANTED]] != votes:
                    continue
            epoch = s[o + EPOCH]
            bag = msg.send_all_once(s[g + MESSAGES], [(msg.BQQ, epoch, i, j) for j in peers if j != i])
            if bag is None:
                continue
            t = list(s)
            t[o + STATE], t[o + LEADER_ID], t[o + END_OFFSET] = LEADER, i, self.zero_offsets
            t[g + MESSAGES] = bag
            yield QuorumAction("BecomeLeader", i + 1, epoch=epoch), tuple(t)

    def client_request(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``ClientRequest(i, v)``: a leader appends a value no client has sent yet."""
        g = self.layout.g
        for i in self.layout.servers:
            o = self.layout.base[i]
            if s[o + STATE] != LEADER:
                continue
            for v in self.values:
                acked = s[g + ACKED_FIELD]
                if acked[v] != UNWRITTEN:
                    continue
                t = list(s)
                t[o + LOG] = s[o + LOG] + ((s[o + EPOCH], v),)
                t[g + ACKED_FIELD] = acked[:v] + (PENDING,) + acked[v + 1:]
                yield QuorumAction("ClientRequest", i + 1, value=v), tuple(t)

    def reject_fetch_request(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``RejectFetchRequest``: a server that does not lead, or leads in another epoch, answers
        NotLeader, FencedLeaderEpoch or UnknownLeader."""
        g, base = self.layout.g, self.layout.base
        for m in self._receivable(s, msg.FQ, False):
            i, j, m_epoch = m[5], m[4], m[1]
            o = base[i]
            if s[o + STATE] != LEADER:
                error = msg.NOT_LEADER
            elif m_epoch < s[o + EPOCH]:
                error = msg.FENCED_LEADER_EPOCH
            elif m_epoch > s[o + EPOCH]:
                error = msg.UNKNOWN_LEADER
            else:
                continue
            response = (msg.FR, s[o + EPOCH], s[o + LEADER_ID], msg.NOT_OK, error, (), s[o + HW], NIL, NIL, i, j, m)
            bag = msg.reply(s[g + MESSAGES], response, m)
            if bag is None:
                continue
            t = list(s)
            t[g + MESSAGES] = bag
            yield QuorumAction("RejectFetchRequest", i + 1, j + 1, epoch=m_epoch,
                               detail=f"{_position(m)}: {msg.ERROR_NAMES[error]}"), tuple(t)

    def diverging_fetch_request(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``DivergingFetchRequest``: the leader answers a fetch from an inconsistent position with
        the end offset of the follower's last fetched epoch in its own log."""
        g, base = self.layout.g, self.layout.base
        for m in self._receivable(s, msg.FQ, True):
            _, m_epoch, fetch_offset, last_fetched, j, i = m[:6]
            o = base[i]
            log = s[o + LOG]
            if s[o + STATE] != LEADER or valid_fetch_position(log, fetch_offset, last_fetched):
                continue
            offset, epoch = end_offset_for_epoch(log, last_fetched)
            response = (msg.FR, s[o + EPOCH], s[o + LEADER_ID], msg.DIVERGING, NIL, (), s[o + HW], epoch, offset,
                        i, j, m)
            bag = msg.reply(s[g + MESSAGES], response, m)
            if bag is None:
                continue
            t = list(s)
            t[g + MESSAGES] = bag
            yield QuorumAction("DivergingFetchRequest", i + 1, j + 1, epoch=m_epoch, detail=_position(m)), tuple(t)

    def accept_fetch_request(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``AcceptFetchRequest``: the leader records the follower's fetch offset, advances its high
        watermark where a majority has reached an entry of its epoch (acknowledging the values it
        commits), and answers with the next entry, if any."""
        g, base, n = self.layout.g, self.layout.base, self.n
        for m in self._receivable(s, msg.FQ, True):
            _, m_epoch, fetch_offset, last_fetched, j, i = m[:6]
            o = base[i]
            log = s[o + LOG]
            if s[o + STATE] != LEADER or not valid_fetch_position(log, fetch_offset, last_fetched):
                continue
            offset = fetch_offset + 1
            entries = () if offset > len(log) else (log[offset - 1],)
            hw = s[o + HW]
            if m[6:] == (1,):  # AcceptFetchRequestFromObserver: an observer's fetch counts for nothing
                response = (msg.FR, s[o + EPOCH], s[o + LEADER_ID], msg.OK, NIL, entries, min(offset, hw), NIL, NIL,
                            i, j, m)
                bag = msg.reply(s[g + MESSAGES], response, m)
                if bag is None:
                    continue
                t = list(s)
                t[g + MESSAGES] = bag
                yield QuorumAction("AcceptFetchRequest", i + 1, j + 1, epoch=m_epoch, detail=_position(m)), tuple(t)
                continue
            ends = list(s[o + END_OFFSET])
            ends[j] = fetch_offset
            ends_t = tuple(ends)
            resigns = False
            if self.rc is None:
                new_hw = new_high_watermark(log, i, s[o + EPOCH], hw, ends_t, n)
            else:  # the majority of the leader's voter set, the leader counted only if in it
                members = self.rc.members(s, i)
                if self.rc.rule == "ignore-non-voters" and j not in members:
                    continue  # the pitfall: a voter that has not yet seen its removal is never answered
                new_hw = reconfig_high_watermark(log, i, s[o + EPOCH], hw, ends_t, members)
                resigns = new_hw > hw and removed_by(log, i, hw, new_hw)
            response = (msg.FR, s[o + EPOCH], NIL if resigns else s[o + LEADER_ID], msg.OK, NIL, entries,
                        min(new_hw, offset), NIL, NIL, i, j, m)
            bag = msg.reply(s[g + MESSAGES], response, m)
            if bag is None:
                continue
            committed = {log[k][1] for k in range(hw, new_hw)}
            acked = tuple(ACKED if a == PENDING and v in committed else a for v, a in enumerate(s[g + ACKED_FIELD]))
            t = list(s)
            t[o + END_OFFSET], t[o + HW] = ends_t, new_hw
            t[g + ACKED_FIELD], t[g + MESSAGES] = acked, bag
            if resigns:  # its removal committed: the leader resigns
                self.rc.resign(t, i)
            yield QuorumAction("AcceptFetchRequest", i + 1, j + 1, epoch=m_epoch, detail=_position(m)), tuple(t)

    def handle_begin_quorum_request(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``HandleBeginQuorumRequest``: a server learns of the new leader and follows it, unless the
        request is of an older epoch."""
        g, base = self.layout.g, self.layout.base
        for m in self._receivable(s, msg.BQQ, False):
            _, m_epoch, j, i = m
            if self.rc is not None and not self.rc.is_voter(s, i):  # an observer never takes BeginQuorum
                continue
            o = base[i]
            t = list(s)
            if m_epoch < s[o + EPOCH]:
                response = (msg.BQR, s[o + EPOCH], msg.FENCED_LEADER_EPOCH, i, j)
            else:
                self._set(t, i, self._maybe_transition(s, i, j, m_epoch))
                t[o + PENDING_FETCH] = ()
                response = (msg.BQR, m_epoch, NIL, i, j)
            bag = msg.reply(s[g + MESSAGES], response, m)
            if bag is None:
                continue
            t[g + MESSAGES] = bag
            yield QuorumAction("HandleBeginQuorumRequest", i + 1, j + 1, epoch=m_epoch), tuple(t)

    def send_fetch_request(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``SendFetchRequest(i, j)``: a follower with no fetch in flight fetches from its leader,
        naming its log end and last epoch; with ``--max-fetches``, while the run has fetches left."""
        g, bound = self.layout.g, self.layout.fetches
        if bound is not None and s[bound] >= self.config.max_fetches:
            return  # --max-fetches: a bound of the search, not a step of the spec
        for i in self.layout.servers:
            o = self.layout.base[i]
            if s[o + PENDING_FETCH]:
                continue
            log = s[o + LOG]
            observer: tuple = ()
            targets: tuple = ()
            if s[o + STATE] == FOLLOWER and s[o + LEADER_ID] not in (NIL, i):
                targets = (s[o + LEADER_ID],)
            if self.rc is not None:
                members = self.rc.members(s, i)
                observer = (0,) if i in members else (1,)
                if observer == (1,) and s[o + STATE] == UNATTACHED:  # an observer asks any voter it knows
                    targets = tuple(j for j in members if j != i)
            for j in targets:
                request = (msg.FQ, s[o + EPOCH], len(log), last_epoch(log), i, j) + observer
                t = list(s)
                t[o + PENDING_FETCH] = request
                t[g + MESSAGES] = msg.send(s[g + MESSAGES], request)
                if bound is not None:
                    t[bound] += 1
                yield QuorumAction("SendFetchRequest", i + 1, j + 1, epoch=s[o + EPOCH],
                                   detail=f"offset {len(log)}" + (", observer" if observer == (1,) else "")), tuple(t)

    def _fetch_responses(self, s: tuple, handled_wanted: bool) -> Iterator[tuple[tuple, int, int, tuple]]:
        """Fetch responses to a server's pending fetch, with the common handling's verdict as wanted."""
        base = self.layout.base
        for m in self._receivable(s, msg.FR, False):
            i, j = m[10], m[9]
            triple, handled = self._common_response(s, i, m[2], m[1], m[4])
            if handled == handled_wanted and s[base[i] + PENDING_FETCH] == m[11]:
                yield m, i, j, triple

    def handle_success_fetch_response(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``HandleSuccessFetchResponse``: the follower appends the entry and takes the high watermark."""
        g, base = self.layout.g, self.layout.base
        for m, i, j, _ in self._fetch_responses(s, False):
            if m[3] != msg.OK:
                continue
            o = base[i]
            t = list(s)
            t[o + HW] = m[6]
            if m[5]:
                t[o + LOG] = s[o + LOG] + m[5]
                if self.rc is not None:
                    self.rc.switched(t, i, s[o + LOG])
            t[o + PENDING_FETCH] = ()
            t[g + MESSAGES] = msg.discard(s[g + MESSAGES], m)
            entries = ", ".join(f"{msg.entry_name(v)}@{e}" for e, v in m[5])
            yield QuorumAction("HandleSuccessFetchResponse", i + 1, j + 1, epoch=m[1],
                               detail=f"entries [{entries}], hwm {m[6]}"), tuple(t)

    def handle_diverging_fetch_response(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``HandleDivergingFetchResponse``: the follower truncates to the highest entry it shares with
        the leader (``TruncateLog``)."""
        g, base = self.layout.g, self.layout.base
        for m, i, j, _ in self._fetch_responses(s, False):
            if m[3] != msg.DIVERGING:
                continue
            o = base[i]
            log = s[o + LOG]
            keep = highest_common_offset(log, m[8], m[7])
            t = list(s)
            t[o + LOG] = log[:keep]
            if self.rc is not None:
                self.rc.switched(t, i, log)
            t[o + PENDING_FETCH] = ()
            t[g + MESSAGES] = msg.discard(s[g + MESSAGES], m)
            yield QuorumAction("HandleDivergingFetchResponse", i + 1, j + 1, epoch=m[1],
                               detail=f"diverging at (offset {m[8]}, epoch {m[7]}), hwm {m[6]}: truncate to {keep}"
                               ), tuple(t)

    def handle_error_fetch_response(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``HandleErrorFetchResponse``: a response of another epoch or with an error moves the
        follower on: unattached, or following a leader it did not know."""
        g, base = self.layout.g, self.layout.base
        for m, i, j, triple in self._fetch_responses(s, True):
            o = base[i]
            t = list(s)
            self._set(t, i, triple)
            t[o + PENDING_FETCH] = ()
            t[g + MESSAGES] = msg.discard(s[g + MESSAGES], m)
            words = msg.RESULT_NAMES[m[3]] + ("" if m[4] == NIL else f" {msg.ERROR_NAMES[m[4]]}")
            leader = "" if m[2] == NIL else f", leader {m[2] + 1}"
            yield QuorumAction("HandleErrorFetchResponse", i + 1, j + 1, epoch=m[1],
                               detail=f"{words}{leader}, hwm {m[6]}"), tuple(t)
