"""KIP-996's pre-vote in the metadata quorum (``--pre-vote``), after kafka-tlaplus ``kraft/kip_996``
(Vanlightly), added to the pull-based Raft of KRaft.tla (``isrcheck.model.quorum.steps``).

What is modelled, with kip_996's names for the steps:

- ``VoterFetchTimeout`` (a Follower) and ``VoterElectionTimeout`` (a Candidate or Unattached server):
  the timeout no longer bumps the epoch; the server becomes Prospective in its epoch (keeping the
  leader it knew and its vote), counts its own pre-vote and asks every other server for one with
  its last entry. These replace KRaft.tla's ``RequestVote``; each spends one of ``--max-elections``
  (MaxElections bounds timeouts in both forms: an election, or a pre-vote round that may become one).
- ``HandleRequestVoteRequest`` of a pre-vote: refused (FencedLeaderEpoch) from an older epoch; a
  later epoch makes the receiver Unattached in it, as any vote request does; granted when the
  candidate's last entry is not behind and the receiver is Unattached, Voted, Prospective or a
  Candidate, or a Follower that has not fetched from its leader successfully since it became one
  (kip_996's ``has_fetch_success``: it has not heard from a leader within its fetch timeout). A
  Leader and a Follower that fetches never grant one. Granting records no vote.
- ``HandleRequestVoteResponse`` of a pre-vote: a response of a later epoch, naming a leader, or
  carrying an error moves the server on (``MaybeHandleCommonResponse``); a granted pre-vote is
  counted while the server is Prospective; the response is consumed in any case, as in kip_996.
- ``ConcludePreVote``: with a majority of pre-votes the Prospective stands for election as
  KRaft.tla's ``RequestVote`` did (Candidate in the next epoch, standard vote requests); without
  one, once none of its pre-vote requests or responses is in flight,
  it goes back to following the leader it knew, or to Unattached.
- ``fetched``: the servers that have had a successful fetch response since they last changed their
  state, epoch or leader (a field after the table's, present only with ``--pre-vote``; restarts and
  BeginQuorum clear it too, as kip_996's ``ResetFetchStateIfFollower``).

``init_leader`` (``--init-leader``, with or without pre-vote) is kip_996's ``Init``: server 1 leads
epoch 1 and the others follow it (and, with pre-vote, have fetched from it), so that a disruption
needs no election first.

With ``--max-reconfigs`` (KIP-853, ``isrcheck.model.quorum.reconfig``) the steps compose as kip_996,
which holds both, has them: only a voter (in its own voter set) times out, it asks the other members
of that set and concludes with a majority of it, an observer ignores pre-vote responses (any server
answers a pre-vote request); the initial followers have fetched, the joining servers have not; the
reconfiguration steps are not fair (kip_996's ``Fairness`` leaves AddVoter and RemoveVoter out).

Abstracted away, and why (docs/quorum.md, "Pre-vote (KIP-996)"): kip_996's network partitions,
crashes that lose state, Resigned leaders, CheckQuorum and its auxiliary counters
(a timeout here may happen at any moment, as KRaft.tla's; the network is KRaft.tla's bag, so a
server asks for pre-votes once per epoch and log end, which keeps the state space finite); the
log's leader-change and InitCluster records (logs hold values only, as KRaft.tla's). A Prospective
does not grant a standard vote in its epoch (kip_996 lets it when it has not voted); a Prospective
that restarts comes back Unattached with ``--restart persisted`` (kip_996's ``BootTimeUnattached``)
and a leaderless Follower with the spec's restart.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import messages as msg
from .actions import QuorumAction
from .fields import (
    CANDIDATE,
    ELECTIONS,
    EPOCH,
    FOLLOWER,
    LEADER,
    LEADER_ID,
    LOG,
    MESSAGES,
    NIL,
    PENDING_FETCH,
    PROSPECTIVE,
    STATE,
    UNATTACHED,
    VOTED,
    VOTED_FOR,
    VOTES_GRANTED,
    Layout,
)
from .raftlog import compare_entries, last_epoch
from .steps import QuorumSteps, _response_words

GRANTS_PRE_VOTE = (UNATTACHED, VOTED, PROSPECTIVE, CANDIDATE)  # and a Follower that has not fetched
FETCHED_DOC = ("(pre-vote) the servers that have fetched from their leader successfully since they last changed "
               "state, epoch or leader: such a Follower refuses pre-votes (KIP-996)")
# kip_996's Fairness: weak fairness of every step but the environment's (Restart, ClientRequest).
UNFAIR = ("Restart", "ClientRequest")
SERVER_STEPS = ("VoterFetchTimeout", "VoterElectionTimeout", "ConcludePreVote", "BecomeLeader")
PEER_STEPS = ("HandleRequestVoteRequest", "HandleRequestVoteResponse", "RejectFetchRequest", "DivergingFetchRequest",
              "AcceptFetchRequest", "HandleBeginQuorumRequest", "SendFetchRequest", "HandleSuccessFetchResponse",
              "HandleDivergingFetchResponse", "HandleErrorFetchResponse")


def initial_state(layout: Layout, values: int, pre_vote: bool, init_leader: bool) -> tuple:
    """KRaft.tla's Init (every server Unattached in epoch 1), or kip_996's with ``init_leader``;
    with pre-vote, the ``fetched`` set after the table's fields."""
    blocks: tuple = ()
    for i in layout.servers:
        if not init_leader:
            blocks += (1, UNATTACHED, NIL, NIL, (), (), 0, 0, (0,) * layout.n)
        else:
            blocks += (1, LEADER if i == 0 else FOLLOWER, NIL, 0, (), (), 0, 0, (0,) * layout.n)
    state = blocks + ((), (0,) * values, 0, 0)
    if pre_vote:
        state += (layout.all_mask & ~1 if init_leader else 0,)
    return state


def families(n: int) -> dict[str, str]:
    """kip_996's ``Fairness``: each step of each server (and peer, for a message) weakly fair,
    but the environment's."""
    servers = range(1, n + 1)
    table = {f"{name} {i}": "weak" for name in SERVER_STEPS for i in servers}
    table.update({f"{name} {i}<-{j}": "weak" for name in PEER_STEPS for i in servers for j in servers if j != i})
    return table


def family(action: Any) -> str:
    """An action's family under kip_996's fairness: its step, server and peer."""
    return f"{action.name} {action.server}" + (f"<-{action.peer}" if action.peer else "")


class PreVoteSteps(QuorumSteps):
    """KRaft.tla's steps with RequestVote replaced by kip_996's pre-vote steps."""

    def __init__(self, config: Any, layout: Layout) -> None:
        super().__init__(config, layout)
        self.fetched = layout.length  # the index of the ``fetched`` set

    def _receivable(self, s: tuple, kind: int, equal_epoch: bool) -> Iterator[tuple]:
        """KRaft.tla's handlers never see a pre-vote: those are this module's."""
        for m in super()._receivable(s, kind, equal_epoch):
            if not msg.is_pre_vote(m):
                yield m

    def _pre_votes(self, s: tuple, kind: int) -> Iterator[tuple]:
        for m, count in s[self.layout.g + MESSAGES]:
            if count > 0 and m[0] == kind and msg.is_pre_vote(m):
                yield m

    def successors(self, s: tuple) -> list[tuple[QuorumAction, tuple]]:
        out: list[tuple[QuorumAction, tuple]] = []
        for step in (self.restart, self.voter_fetch_timeout, self.voter_election_timeout,
                     self.handle_request_vote_request, self.handle_pre_vote_request,
                     self.handle_request_vote_response, self.handle_pre_vote_response, self.conclude_pre_vote,
                     self.become_leader, self.client_request, self.reject_fetch_request, self.diverging_fetch_request,
                     self.accept_fetch_request, self.handle_begin_quorum_request, self.send_fetch_request,
                     self.handle_success_fetch_response, self.handle_diverging_fetch_response,
                     self.handle_error_fetch_response):
            for action, t in step(s):
                out.append((action, self._track(s, action, t)))
        if self.rc is not None:  # KIP-853's AddVoter and RemoveVoter close Next, as without pre-vote
            out.extend((action, self._track(s, action, t)) for action, t in self.rc.steps(s))
        return out

    def _peers(self, s: tuple, i: int) -> tuple[int, ...] | None:
        """Whom ``i`` asks for (pre-)votes: every other server, or with ``--max-reconfigs`` the other
        members of its voter set, None when it is not in it (kip_996: only a voter times out and
        stands, and it asks its voter set)."""
        if self.rc is None:
            return tuple(j for j in self.layout.servers if j != i)
        members = self.rc.members(s, i)
        return tuple(j for j in members if j != i) if i in members else None

    def _track(self, s: tuple, action: QuorumAction, t: tuple) -> tuple:
        """The step's effect on ``fetched`` (kip_996's fetch state): cleared for a server whose state,
        epoch or leader changed, that restarted or took a BeginQuorum; set by a successful fetch."""
        lay, mask = self.layout, s[self.fetched]
        for i in lay.servers:
            o = lay.base[i]
            if (s[o + STATE], s[o + EPOCH], s[o + LEADER_ID]) != (t[o + STATE], t[o + EPOCH], t[o + LEADER_ID]):
                mask &= ~(1 << i)
        me = 1 << (action.server - 1)
        if action.name == "Restart" or (action.name == "HandleBeginQuorumRequest"
                                        and action.epoch >= s[lay.base[action.server - 1] + EPOCH]):
            mask &= ~me
        elif action.name == "HandleSuccessFetchResponse":
            mask |= me
        if action.name == "Restart" and self.config.restart == "persisted":
            o = lay.base[action.server - 1]
            if t[o + STATE] == PROSPECTIVE:  # kip_996's BootTimeUnattached
                u = list(t)
                u[o + STATE], u[o + LEADER_ID], u[o + VOTES_GRANTED] = UNATTACHED, NIL, 0
                t = tuple(u)
        if mask == t[self.fetched]:
            return t
        return t[:self.fetched] + (mask,)

    # -- the timeouts -------------------------------------------------------------------------------

    def _timeout(self, s: tuple, states: tuple[int, ...], name: str) -> Iterator[tuple[QuorumAction, tuple]]:
        """``TransitionToProspective`` and ``SendPreVoteRequests``: Prospective in the same epoch, the
        leader and vote kept, its own pre-vote counted, a pre-vote request to every other server."""
        g = self.layout.g
        if s[g + ELECTIONS] >= self.config.max_elections:
            return
        for i in self.layout.servers:
            o = self.layout.base[i]
            peers = self._peers(s, i) if s[o + STATE] in states else None
            if peers is None:
                continue
            epoch, log = s[o + EPOCH], s[o + LOG]
            requests = [(msg.RVQ, epoch, last_epoch(log), len(log), i, j, msg.PRE_VOTE) for j in peers]
            bag = msg.send_all_once(s[g + MESSAGES], requests)
            if bag is None:
                continue
            t = list(s)
            t[o + STATE], t[o + VOTES_GRANTED], t[o + PENDING_FETCH] = PROSPECTIVE, 1 << i, ()
            t[g + MESSAGES] = bag
            t[g + ELECTIONS] += 1
            yield QuorumAction(name, i + 1, epoch=epoch), tuple(t)

    def voter_fetch_timeout(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``VoterFetchTimeout(s)``: a Follower's fetches time out; it asks for pre-votes."""
        return self._timeout(s, (FOLLOWER,), "VoterFetchTimeout")

    def voter_election_timeout(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``VoterElectionTimeout(s)``: a Candidate or Unattached server times out; it asks for pre-votes."""
        return self._timeout(s, (CANDIDATE, UNATTACHED), "VoterElectionTimeout")

    # -- pre-votes ----------------------------------------------------------------------------------

    def handle_pre_vote_request(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``HandleVoteRequest`` of a pre-vote (``GrantPreVote``): granted to a candidate whose last
        entry is not behind, by a server that is not a Leader and not a Follower that has fetched."""
        g, base = self.layout.g, self.layout.base
        for m in self._pre_votes(s, msg.RVQ):
            _, m_epoch, m_last_epoch, m_last_offset, j, i, _ = m
            o = base[i]
            t = list(s)
            if m_epoch < s[o + EPOCH]:
                response = (msg.RVR, s[o + EPOCH], s[o + LEADER_ID], 0, msg.FENCED_LEADER_EPOCH, i, j, msg.PRE_VOTE)
                granted = False
            else:
                state0 = (UNATTACHED, m_epoch, NIL) if m_epoch > s[o + EPOCH] else (
                    s[o + STATE], s[o + EPOCH], s[o + LEADER_ID])
                log = s[o + LOG]
                log_ok = compare_entries(m_last_offset, m_last_epoch, len(log), last_epoch(log)) >= 0
                fetched = s[self.fetched] >> i & 1
                granted = log_ok and (state0[0] in GRANTS_PRE_VOTE or (state0[0] == FOLLOWER and not fetched))
                self._set(t, i, state0)
                if state0[0] != s[o + STATE]:
                    t[o + PENDING_FETCH] = ()
                response = (msg.RVR, m_epoch, state0[2], int(granted), NIL, i, j, msg.PRE_VOTE)
            bag = msg.reply(s[g + MESSAGES], response, m)
            if bag is None:
                continue
            t[g + MESSAGES] = bag
            yield QuorumAction("HandleRequestVoteRequest", i + 1, j + 1, epoch=m_epoch,
                               detail="pre-vote " + ("granted" if granted else "refused")), tuple(t)

    def handle_pre_vote_response(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``HandleVoteResponse`` of a pre-vote: ``MaybeHandleCommonResponse``, else a granted
        pre-vote counted by a Prospective; consumed in any case."""
        g, base = self.layout.g, self.layout.base
        for m in self._pre_votes(s, msg.RVR):
            _, m_epoch, m_leader, granted, error, j, i, _ = m
            if self.rc is not None and not self.rc.is_voter(s, i):  # kip_996: roles change with reconfigurations
                continue
            o = base[i]
            triple, handled = self._common_response(s, i, m_leader, m_epoch, error)
            t = list(s)
            if handled:
                self._set(t, i, triple)
            elif s[o + STATE] == PROSPECTIVE and granted:
                t[o + VOTES_GRANTED] |= 1 << j
            t[g + MESSAGES] = msg.discard(s[g + MESSAGES], m)
            yield QuorumAction("HandleRequestVoteResponse", i + 1, j + 1, epoch=m_epoch,
                               detail="pre-vote " + _response_words(granted, m_leader, error)), tuple(t)

    def _in_flight(self, s: tuple, i: int) -> bool:
        """kip_996's ``~NoMorePreVotesToCount``: a pre-vote request of the server's or a response to it
        awaits delivery."""
        return (any(msg.source(m) == i for m in self._pre_votes(s, msg.RVQ))
                or any(msg.dest(m) == i for m in self._pre_votes(s, msg.RVR)))

    def conclude_pre_vote(self, s: tuple) -> Iterator[tuple[QuorumAction, tuple]]:
        """``ConcludePreVote(s)``: with a majority of pre-votes, stand for election (the round's timeout
        spent the election); without one and nothing left to count, follow the known leader again,
        or be Unattached."""
        g, lay = self.layout.g, self.layout
        for i in lay.servers:
            o = lay.base[i]
            if s[o + STATE] != PROSPECTIVE:
                continue
            peers = self._peers(s, i)
            if self.rc is None:
                majority = lay.size[s[o + VOTES_GRANTED]] * 2 > self.n
            else:  # kip_996's votes_recv \in Quorum(config.members): a majority of the voter set, all members
                votes = sum(1 for k in self.rc.members(s, i) if s[o + VOTES_GRANTED] >> k & 1)
                majority = (peers is not None and votes * 2 > len(peers) + 1
                            and lay.size[s[o + VOTES_GRANTED]] == votes)
            t = list(s)
            if majority:
                epoch, log = s[o + EPOCH] + 1, s[o + LOG]
                requests = [(msg.RVQ, epoch, last_epoch(log), len(log), i, j) for j in peers]
                bag = msg.send_all_once(s[g + MESSAGES], requests)
                if bag is None:
                    continue
                t[o + STATE], t[o + EPOCH], t[o + LEADER_ID] = CANDIDATE, epoch, NIL
                t[o + VOTED_FOR], t[o + VOTES_GRANTED], t[o + PENDING_FETCH] = i, 1 << i, ()
                t[g + MESSAGES] = bag
                words = "majority: stand for election"
            else:
                if self._in_flight(s, i):
                    continue
                t[o + STATE] = FOLLOWER if s[o + LEADER_ID] != NIL else UNATTACHED
                t[o + VOTES_GRANTED] = 0
                words = "no majority: back to " + ("following" if s[o + LEADER_ID] != NIL else "Unattached")
            yield QuorumAction("ConcludePreVote", i + 1, epoch=t[o + EPOCH], detail=words), tuple(t)
