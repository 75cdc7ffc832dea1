"""Build the TLA+ reduction the quorum's pre-vote is compared with (docs/quorum.md, "Pre-vote
(KIP-996)"): KRaft.tla (Vanlightly/raft-tlaplus, ``specifications/pull-raft``) with kafka-tlaplus
``kraft/kip_996``'s pre-vote steps added, kip_996's Init as an option, the ``fetched`` set and the
disruption as action properties, so that TLC checks the same design as ``isrcheck check quorum
--pre-vote``.

What it adds to KRaft.tla (the spec's own text is read from the user's checkout, not kept here):
constants ``Prospective``, ``PreVote``, ``InitLeader``, ``PreVoteRequest``, ``PreVoteResponse``; the
variable ``fetched``; ``RequestVote`` enabled only without ``PreVote``; the steps
``VoterFetchTimeout``, ``VoterElectionTimeout``, ``HandlePreVoteRequest``, ``HandlePreVoteResponse``
and ``ConcludePreVote``; every disjunct of ``Next`` conjoined with how it changes ``fetched``
(``Track``); the action properties ``LeaderNotDisrupted`` and ``MajorityLeaderNotDisrupted``. It
also writes one configuration per row of the docs' table (KRaft.cfg with its constants changed,
VIEW and SYMMETRY removed).

Usage (TLC is a development tool, not a dependency: ../shared/tools/tlc in this project's setup):
  python bench/quorum_prevote_tla.py PATH/specifications/pull-raft
  cd PATH/specifications/pull-raft && tlc -workers 1 -deadlock -config PV-init.cfg KRaftPreVote.tla
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

PRE_VOTE = r'''
\* ---- KIP-996 pre-vote (after kafka-tlaplus kraft/kip_996) ----
ProspectiveTimeout(i, states) ==
    /\ PreVote
    /\ electionCtr < MaxElections
    /\ state[i] \in states
    /\ state'        = [state EXCEPT ![i] = Prospective]
    /\ votesGranted' = [votesGranted EXCEPT ![i] = {i}]
    /\ pendingFetch' = [pendingFetch EXCEPT ![i] = Nil]
    /\ electionCtr'  = electionCtr + 1
    /\ SendMultipleOnce(
           {[mtype          |-> PreVoteRequest,
             mepoch         |-> currentEpoch[i],
             mlastLogEpoch  |-> LastEpoch(log[i]),
             mlastLogOffset |-> Len(log[i]),
             msource        |-> i,
             mdest          |-> j] : j \in Server \ {i}})
    /\ UNCHANGED <<currentEpoch, leader, votedFor, acked, leaderVars, logVars, restartCtr>>

VoterFetchTimeout(i) == ProspectiveTimeout(i, {Follower})
VoterElectionTimeout(i) == ProspectiveTimeout(i, {Candidate, Unattached})

HandlePreVoteRequest ==
    \E m \in DOMAIN messages :
        /\ ReceivableMessage(m, PreVoteRequest, AnyEpoch)
        /\ LET i     == m.mdest
               j     == m.msource
               error    == IF m.mepoch < currentEpoch[i]
                           THEN FencedLeaderEpoch
                           ELSE Nil
               state0   == IF m.mepoch > currentEpoch[i]
                           THEN TransitionToUnattached(m.mepoch)
                           ELSE NoTransition(i)
               logOk == CompareEntries(m.mlastLogOffset,
                                       m.mlastLogEpoch,
                                       Len(log[i]),
                                       LastEpoch(log[i])) >= 0
               grant == /\ logOk
                        /\ \/ state0.state \in {Unattached, Voted, Prospective, Candidate}
                           \/ /\ state0.state = Follower
                              /\ i \notin fetched
            IN /\ IF error = Nil
                  THEN
                       /\ state' = [state EXCEPT ![i] = state0.state]
                       /\ currentEpoch' = [currentEpoch EXCEPT ![i] = state0.epoch]
                       /\ leader' = [leader EXCEPT ![i] = state0.leader]
                       /\ IF state # state'
                          THEN pendingFetch' = [pendingFetch EXCEPT ![i] = Nil]
                          ELSE UNCHANGED pendingFetch
                       /\ Reply([mtype         |-> PreVoteResponse,
                                 mepoch        |-> m.mepoch,
                                 mleader       |-> state0.leader,
                                 mvoteGranted  |-> grant,
                                 merror        |-> Nil,
                                 msource       |-> i,
                                 mdest         |-> j], m)
                  ELSE /\ Reply([mtype         |-> PreVoteResponse,
                                 mepoch        |-> currentEpoch[i],
                                 mleader       |-> leader[i],
                                 mvoteGranted  |-> FALSE,
                                 merror        |-> error,
                                 msource       |-> i,
                                 mdest         |-> j], m)
                       /\ UNCHANGED <<state, currentEpoch, leader, pendingFetch>>
               /\ UNCHANGED <<votedFor, candidateVars, leaderVars, logVars, auxVars>>

HandlePreVoteResponse ==
    \E m \in DOMAIN messages :
        /\ ReceivableMessage(m, PreVoteResponse, AnyEpoch)
        /\ LET i        == m.mdest
               j        == m.msource
               newState == MaybeHandleCommonResponse(i, m.mleader, m.mepoch, m.merror)
           IN
              /\ IF newState.handled = TRUE
                 THEN /\ state' = [state EXCEPT ![i] = newState.state]
                      /\ leader' = [leader EXCEPT ![i] = newState.leader]
                      /\ currentEpoch' = [currentEpoch EXCEPT ![i] = newState.epoch]
                      /\ UNCHANGED <<votesGranted>>
                 ELSE
                      /\ IF state[i] = Prospective /\ m.mvoteGranted
                         THEN votesGranted' = [votesGranted EXCEPT ![i] = votesGranted[i] \cup {j}]
                         ELSE UNCHANGED votesGranted
                      /\ UNCHANGED <<state, leader, currentEpoch>>
              /\ Discard(m)
              /\ UNCHANGED <<votedFor, pendingFetch, leaderVars, logVars, auxVars>>

PreVotesInFlight(i) ==
    \E m \in DOMAIN messages :
        /\ messages[m] > 0
        /\ \/ m.mtype = PreVoteRequest /\ m.msource = i
           \/ m.mtype = PreVoteResponse /\ m.mdest = i

ConcludePreVote(i) ==
    /\ state[i] = Prospective
    /\ \/ /\ votesGranted[i] \in Quorum
          /\ state'        = [state EXCEPT ![i] = Candidate]
          /\ currentEpoch' = [currentEpoch EXCEPT ![i] = currentEpoch[i] + 1]
          /\ leader'       = [leader EXCEPT ![i] = Nil]
          /\ votedFor'     = [votedFor EXCEPT ![i] = i]
          /\ votesGranted' = [votesGranted EXCEPT ![i] = {i}]
          /\ pendingFetch' = [pendingFetch EXCEPT ![i] = Nil]
          /\ SendMultipleOnce(
                 {[mtype          |-> RequestVoteRequest,
                   mepoch         |-> currentEpoch[i] + 1,
                   mlastLogEpoch  |-> LastEpoch(log[i]),
                   mlastLogOffset |-> Len(log[i]),
                   msource        |-> i,
                   mdest          |-> j] : j \in Server \ {i}})
          /\ UNCHANGED <<auxVars, leaderVars, logVars>>
       \/ /\ votesGranted[i] \notin Quorum
          /\ ~PreVotesInFlight(i)
          /\ state'        = [state EXCEPT ![i] = IF leader[i] # Nil THEN Follower ELSE Unattached]
          /\ votesGranted' = [votesGranted EXCEPT ![i] = {}]
          /\ UNCHANGED <<messages, currentEpoch, leader, votedFor, pendingFetch, leaderVars, logVars, auxVars>>

\* fetched: cleared where state, epoch or leader changed; by a restart and an accepted BeginQuorum
KeepFetched == {k \in fetched : /\ state'[k] = state[k]
                                /\ currentEpoch'[k] = currentEpoch[k]
                                /\ leader'[k] = leader[k]}
FetchedSuccess == {k \in Server : pendingFetch[k] # Nil /\ pendingFetch'[k] = Nil
                                  /\ state'[k] = state[k] /\ currentEpoch'[k] = currentEpoch[k]}
BeginQuorumTaken == {m.mdest : m \in {m \in DOMAIN messages :
                        /\ m.mtype = BeginQuorumRequest
                        /\ messages'[m] < messages[m]
                        /\ m.mepoch >= currentEpoch[m.mdest]}}
Track(f) == IF PreVote THEN fetched' = f ELSE UNCHANGED fetched

'''

PROPERTIES = r'''
\* ---- the disruption KIP-996 prevents (isrcheck's LeaderNotDisrupted, MajorityLeaderNotDisrupted) ----
Followers(l) == {j \in Server \ {l} : state[j] = Follower /\ leader[j] = l /\ currentEpoch[j] = currentEpoch[l]}
NotDisrupted(everyone) ==
    \A l \in Server :
        (/\ state[l] = Leader
         /\ IF everyone THEN Cardinality(Followers(l)) = Cardinality(Server) - 1
                        ELSE (Cardinality(Followers(l)) + 1) * 2 > Cardinality(Server))
        => \A j \in Server : currentEpoch'[j] <= currentEpoch[l]
\* kip_996's EventuallyLeaderElected, with the bounds' excuse (isrcheck's, as ValuesNotStuck's)
FunctionalLeaderExists ==
    \E l \in Server : state[l] = Leader /\ Cardinality({j \in Server : leader[j] = l}) * 2 > Cardinality(Server)
EventuallyLeaderElected ==
    ~FunctionalLeaderExists ~> (\/ FunctionalLeaderExists
                                \/ electionCtr = MaxElections /\ ~\E l \in Server : state[l] = Leader)
LeaderNotDisrupted == [][NotDisrupted(TRUE)]_vars
MajorityLeaderNotDisrupted == [][NotDisrupted(FALSE)]_vars
'''

# name: (servers, MaxElections, PreVote, InitLeader, what the run checks instead of the cfg's invariants,
# whether the cfg keeps its SYMMETRY, whether it runs KRaft.tla's LivenessSpec (WF_vars(Next)))
RUNS = {
    "PV-base": (3, 1, "TRUE", "FALSE", None),
    "PV-base-sym": (3, 1, "TRUE", "FALSE", None, True),
    "PV-init": (3, 1, "TRUE", "TRUE", "PROPERTY LeaderNotDisrupted\nPROPERTY MajorityLeaderNotDisrupted\n"
                "INVARIANT NoIllegalState NoLogDivergence NeverTwoLeadersInSameEpoch LeaderHasAllAckedValues"),
    "PV-two": (2, 2, "TRUE", "FALSE", None),
    "PV-timeout": (3, 1, "FALSE", "TRUE", "PROPERTY LeaderNotDisrupted"),
    "PV-race": (3, 2, "TRUE", "TRUE", "PROPERTY MajorityLeaderNotDisrupted"),
    "PV-ele": (3, 1, "FALSE", "FALSE", "PROPERTY EventuallyLeaderElected", False, True),
}


def _replace(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise SystemExit(f"KRaft.tla is not the version this was written for: {old.splitlines()[0]!r} "
                         f"found {text.count(old)} times")
    return text.replace(old, new)


def _track(line: str) -> str:
    """A disjunct of Next conjoined with its effect on ``fetched``."""
    if "Restart(i)" in line:
        return line + " /\\ Track(KeepFetched \\ {i})"
    if "HandleBeginQuorumRequest" in line:
        return line + " /\\ Track(KeepFetched \\ BeginQuorumTaken)"
    if "HandleSuccessFetchResponse" in line:
        return line + " /\\ Track(KeepFetched \\cup FetchedSuccess)"
    return line + " /\\ Track(KeepFetched)"


def reduce_spec(text: str) -> str:
    out = text.replace("MODULE KRaft ", "MODULE KRaftPreVote ", 1)
    out = _replace(out, "CONSTANTS Follower, Candidate, Leader, Unattached, Voted\n",
                   "CONSTANTS Follower, Candidate, Leader, Unattached, Voted, Prospective\n"
                   "CONSTANTS PreVote, InitLeader, PreVoteRequest, PreVoteResponse\n")
    out = _replace(out, "serverVars == <<currentEpoch, state, votedFor, leader, pendingFetch>>\n",
                   "serverVars == <<currentEpoch, state, votedFor, leader, pendingFetch>>\nVARIABLE fetched\n")
    out = re.sub(r"vars == <<messages, serverVars, candidateVars, leaderVars, logVars,\s*auxVars>>",
                 lambda _: "vars == <<messages, serverVars, candidateVars, leaderVars, logVars, auxVars, fetched>>",
                 out, count=1)
    out = _replace(out, "logVars, acked >>", "logVars, acked, fetched >>")
    out = _replace(out, "InitServerVars == /\\ currentEpoch = [i \\in Server |-> 1]",
                   "InitL == CHOOSE s \\in Server : TRUE\n"
                   "InitServerVars == /\\ fetched = IF PreVote /\\ InitLeader THEN Server \\ {InitL} ELSE {}\n"
                   "                  /\\ currentEpoch = [i \\in Server |-> 1]")
    out = _replace(out, "state        = [i \\in Server |-> Unattached]",
                   "state = [i \\in Server |-> IF ~InitLeader THEN Unattached ELSE IF i = InitL THEN Leader "
                   "ELSE Follower]")
    out = _replace(out, "leader       = [i \\in Server |-> Nil]",
                   "leader = [i \\in Server |-> IF InitLeader THEN InitL ELSE Nil]")
    out = _replace(out, "RequestVote(i) ==\n", "RequestVote(i) ==\n    /\\ ~PreVote\n")
    out = _replace(out, "\\* ACTION: HandleRequestVoteRequest -", PRE_VOTE + "\\* ACTION: HandleRequestVoteRequest -")
    lines = out.split("\n")
    start = lines.index("Next == ")
    end = start + 1
    while lines[end].strip():
        end += 1
    body = [_track(x) if x.lstrip().startswith("\\/") and not x.lstrip().startswith("\\/ \\E m") else x
            for x in lines[start + 1:end]]
    extra = ["        \\/ \\E i \\in Server : VoterFetchTimeout(i) /\\ Track(KeepFetched)",
             "        \\/ \\E i \\in Server : VoterElectionTimeout(i) /\\ Track(KeepFetched)",
             "        \\/ HandlePreVoteRequest /\\ Track(KeepFetched)",
             "        \\/ HandlePreVoteResponse /\\ Track(KeepFetched)",
             "        \\/ \\E i \\in Server : ConcludePreVote(i) /\\ Track(KeepFetched)"]
    lines[start + 1:end] = body + extra
    out = "\n".join(lines)
    last = out.rindex("\n====")
    return out[:last] + "\n" + PROPERTIES + out[last:]


def config(base: str, servers: int, elections: int, pre_vote: str, init_leader: str, checks: str | None,
           symmetry: bool = False, liveness: bool = False) -> str:
    names = ", ".join(f"n{i}" for i in range(1, servers + 1))
    cfg = re.sub(r"Server = \{[^}]*\}", "Server = {" + names + "}", base)
    cfg = re.sub(r"MaxElections = \d+", f"MaxElections = {elections}", cfg)
    cfg = re.sub(r"MaxRestarts = \d+", "MaxRestarts = 0", cfg)
    cfg = cfg.replace("    Voted = Voted", "    Voted = Voted\n    Prospective = Prospective\n"
                      "    PreVoteRequest = PreVoteRequest\n    PreVoteResponse = PreVoteResponse\n"
                      f"    PreVote = {pre_vote}\n    InitLeader = {init_leader}")
    cfg = cfg.replace("VIEW view\n", "")
    if not symmetry:
        cfg = cfg.replace("SYMMETRY symmServers\n", "")
    if checks:
        cfg = cfg[:cfg.index("INVARIANT")] + checks + "\n"
    if liveness:
        cfg = cfg.replace("INIT Init\nNEXT Next\n", "SPECIFICATION LivenessSpec\n")
    return cfg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="raft-tlaplus's specifications/pull-raft")
    args = parser.parse_args()
    spec = args.folder / "KRaft.tla"
    (args.folder / "KRaftPreVote.tla").write_text(reduce_spec(spec.read_text()))
    base = (args.folder / "KRaft.cfg").read_text()
    for name, run in RUNS.items():
        (args.folder / f"{name}.cfg").write_text(config(base, *run))
        print(f"tlc -workers 1 -deadlock -config {name}.cfg KRaftPreVote.tla")


if __name__ == "__main__":
    main()
