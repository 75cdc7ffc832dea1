"""The metadata quorum's entries of the scenario catalogue (``isrcheck.model.quorum``), at the bounds
of the TLC runs that anchor them: Vanlightly's KRaft.tla (raft-tlaplus, ``specifications/pull-raft``)
with 3 servers, one value and one election (MaxElections 1), with and without one restart
(MaxRestarts 1). Registered in the ``isrcheck.scenarios`` entry-point group
(``quorum = "isrcheck.model.scenarios.quorum:scenarios"``); docs/quorum.md tells each trace.

Trace lengths count states, the initial one included (TLC's depth): Q-restart-follower is 7 here as in TLC.
The Q-reconfig- entries are KIP-853's dynamic voters (KRaftWithReconfig.tla, kafka-tlaplus ``kraft/kip_853``).

The pre-vote entries (KIP-996, ``--pre-vote``; docs/quorum.md, "Pre-vote (KIP-996)") start from
kafka-tlaplus ``kraft/kip_996``'s Init, a leader already elected (``--init-leader``), and are
anchored on TLC runs of KRaft.tla with kip_996's pre-vote steps added (the reduction the docs describe).
"""

from __future__ import annotations

from isrcheck.explorer.scenarios import Scenario

# The anchor's constants as the model's options (isrcheck.model.quorum.factory): |Server| = voters,
# |Value| = values, MaxElections = max_elections, MaxRestarts = max_crashes.
ANCHOR = {"voters": 3, "values": 1, "max_elections": 1}
# KIP-853 (isrcheck.model.quorum.reconfig): 2 voters and 1 joining server (KRaftWithReconfig's Hosts of 3,
# InitClusterSize 2), one reconfiguration, no value and no election: the bounds a complete run affords.
RECONFIG_JOIN = {"voters": 2, "joining": 1, "values": 0, "max_elections": 0, "max_reconfigs": 1}
# The two-majorities pitfall's bounds with fetches bounded (--max-fetches, a bound of the search): two
# FetchRequests are the fewest with which the spec's rule commits a value under a new voter set.
RECONFIG_FETCHES = {**ANCHOR, "max_reconfigs": 1, "max_fetches": 2}
SAFETY = ("NoLogDivergence", "NeverTwoLeadersInSameEpoch", "LeaderHasAllAckedValues", "AckedValueNotLost")
PRE_VOTE_ANCHOR = {**ANCHOR, "init_leader": True}


def scenarios() -> list[Scenario]:
    return [
        Scenario(
            id="Q-restart-follower",
            title="KRaft.tla's restart makes a Follower that knows no leader; its leader's BeginQuorum is then illegal",
            model="quorum",
            options={**ANCHOR, "max_crashes": 1},
            properties=("NoIllegalState",),
            expect="violated",
            trace_length=7,
            story=(
                "Server 1 stands for election in epoch 2 and server 2 votes for it. Server 2 restarts: the "
                "spec's Restart keeps its epoch, vote and log and makes it a Follower that knows no leader. "
                "Server 1 counts the vote, leads, and sends BeginQuorum. Server 2, a Follower already in "
                "epoch 2, is told to become a Follower in epoch 2, which the spec's TransitionToFollower "
                "declares illegal. The spec's own state, not a protocol fault: Kafka restores a restarted "
                "voter as Unattached or Voted (its quorum-state file), never as a leaderless Follower. "
                "TLC finds the same 7-state trace, 225 distinct states at the stop."
            ),
        ),
        Scenario(
            id="Q-restart-safe",
            title="with that restart, the quorum still never loses or forks a committed value",
            model="quorum",
            options={**ANCHOR, "max_crashes": 1},
            properties=SAFETY,
            expect="holds",
            story=(
                "The same bounds, every safety invariant but NoIllegalState: with one election the illegal "
                "state is a dead end for the server that reached it, and no value is lost, forked or missing "
                "from the newest leader (135,343 states, depth 43, as TLC). With a second election it is not: "
                "Q-two-leaders."
            ),
        ),
        Scenario(
            id="Q-restart-persisted",
            title="a restart into the persisted election state keeps every invariant, NoIllegalState included",
            model="quorum",
            options={**ANCHOR, "max_crashes": 1, "restart": "persisted"},
            properties=("NoIllegalState", *SAFETY),
            expect="holds",
            story=(
                "Q-restart-follower's fixed form: the restarted server comes back in the election state it "
                "had persisted (Voted for its candidate, a Follower of its leader, ...), as Kafka restores a "
                "voter from its quorum-state file. No transition is ever illegal and no committed value is "
                "lost, forked or missing from the newest leader (117,449 states, depth 33)."
            ),
        ),
        Scenario(
            id="Q-two-leaders",
            title="with two elections, the server in IllegalState (epoch 0) votes again in the epoch it voted in",
            model="quorum",
            options={**ANCHOR, "max_elections": 2, "max_crashes": 1},
            properties=("NeverTwoLeadersInSameEpoch",),
            expect="violated",
            trace_length=11,
            story=(
                "Servers 1 and 2 both stand for election in epoch 2. Server 3 votes for 1, restarts (a "
                "Follower that knows no leader, as in Q-restart-follower), and 1 leads with its vote. 1's "
                "BeginQuorum puts 3 in IllegalState, whose epoch the spec sets to 0, so 3 takes 2's request "
                "of epoch 2 as news of a later epoch, becomes Unattached in epoch 2 and votes for 2: 2 leads "
                "epoch 2 too, and servers 1 and 2 both name themselves its leader. TLC finds the same 11-state "
                "trace (NoIllegalState left out of its invariants, MaxElections 2, MaxRestarts 1)."
            ),
        ),
        Scenario(
            id="Q-values-stuck",
            title="after that restart, a committed value never reaches the server in IllegalState (ValuesNotStuck)",
            model="quorum",
            options={**ANCHOR, "max_crashes": 1},
            properties=("ValuesNotStuck",),
            expect="violated",
            trace_length=17,
            story=(
                "KRaft.tla's liveness property under its LivenessSpec (weak fairness of Next): server 2 "
                "restarts after voting and reaches IllegalState at the new leader's BeginQuorum, as in "
                "Q-restart-follower. Leader 1 writes A and server 3 fetches it; the high watermark advances "
                "and A is acknowledged, but server 2, in IllegalState, never fetches again: the value stays "
                "on two servers of three for ever. The lasso ends in a state that stutters, since no step is "
                "enabled but a fetch the leader may not answer twice. TLC finds a lasso of the same 17 states."
            ),
        ),
        Scenario(
            id="Q-values-persisted",
            title="with the restart into the persisted election state, every value reaches every server or none",
            model="quorum",
            options={**ANCHOR, "max_crashes": 1, "restart": "persisted"},
            properties=("ValuesNotStuck",),
            expect="holds",
            story=(
                "Q-values-stuck's fixed form: the restarted server comes back in the election state it had "
                "persisted, never reaches IllegalState, keeps fetching, and every fair behaviour ends with "
                "each value on all three servers or on none (117,449 states)."
            ),
        ),
        Scenario(
            id="Q-values-not-stuck",
            title="without a restart every value reaches every server or none (ValuesNotStuck holds)",
            model="quorum",
            options=dict(ANCHOR),
            properties=("ValuesNotStuck",),
            expect="holds",
            story=(
                "The anchor without a restart, under weak fairness of Next: every fair behaviour ends with "
                "the value on all three servers or on none (it is never written, or the election fails), as "
                "TLC finds over the same 10,468 states."
            ),
        ),
        # KIP-853's dynamic voters (--max-reconfigs; isrcheck.model.quorum.reconfig): the cluster starts
        # as KRaftWithReconfig's Init, server 1 leading epoch 1.
        Scenario(
            id="Q-reconfig-join",
            title="a server joins as an observer and is added as a voter, one at a time: every invariant holds",
            model="quorum",
            options=dict(RECONFIG_JOIN),
            properties=("NoIllegalState", *SAFETY, "StatesMatchRoles"),
            expect="holds",
            story=(
                "Two voters, server 1 leading, and server 3 fetching as an observer; one reconfiguration "
                "(AddVoter of 3, or RemoveVoter of 1 or 2, the leader included), no election. Servers use the "
                "newest voter set in their logs, committed or not; the high watermark counts the leader's "
                "voter set; a leader that removed itself leads on, not counting itself, until the removal "
                "commits, then resigns. Every invariant holds over 6,292 states, depth 38."
            ),
        ),
        Scenario(
            id="Q-reconfig-not-stuck",
            title="every reconfiguration ends committed on all of the leader's voters or on none",
            model="quorum",
            options=dict(RECONFIG_JOIN),
            properties=("ReconfigurationNotStuck",),
            expect="holds",
            story=(
                "Q-reconfig-join's bounds under weak fairness of Next: every fair behaviour ends with the "
                "voter-set entry committed on every member of the newest leader's voter set, or on none "
                "(6,292 states)."
            ),
        ),
        Scenario(
            id="Q-reconfig-stuck",
            title="a leader that ignores fetches from voters outside its voter set never commits a removal",
            model="quorum",
            options={**RECONFIG_JOIN, "reconfig_rule": "ignore-non-voters"},
            properties=("ReconfigurationNotStuck",),
            expect="violated",
            trace_length=13,
            story=(
                "The tweak KRaftWithReconfig warns against: the leader answers no fetch from a voter that is "
                "not in its own voter set. Leader 1 removes server 2 (voters {1}) and uses that set at once; "
                "server 2 has not fetched the removal yet, so its fetches go unanswered, and only a voter's "
                "fetch moves the leader's high watermark (the observer's, server 3's, does not). The removal "
                "is never committed: a lasso of 13 states that stutters with the voter set {1} uncommitted."
            ),
        ),
        # kip_853's ValuesEventuallyAcked (docs/quorum.md, "ValuesEventuallyAcked").
        Scenario(
            id="Q-values-acked",
            title="a single voter grows to two, and every written value is eventually acknowledged",
            model="quorum",
            options={"voters": 1, "joining": 2, "values": 1, "max_elections": 0, "max_reconfigs": 1},
            properties=("ValuesEventuallyAcked",),
            expect="holds",
            story=(
                "Server 1 alone leads; servers 2 and 3 fetch as observers; one reconfiguration (AddVoter of "
                "2 or 3: a voter set of one cannot shrink). A leader's high watermark moves only when a voter "
                "fetches, so value A commits once the new voter has fetched it: under weak fairness of Next "
                "every behaviour that writes A ends with it acknowledged (18,224 states)."
            ),
        ),
        Scenario(
            id="Q-values-unacked",
            title="a leader that removed its only other voter never acknowledges a value",
            model="quorum",
            options={"voters": 2, "values": 1, "max_elections": 0, "max_reconfigs": 1},
            properties=("ValuesEventuallyAcked",),
            expect="violated",
            trace_length=13,
            story=(
                "Leader 1 removes server 2 (voters {1}), the removal commits, then a client writes A. The "
                "leader's high watermark moves only on a fetch from a voter, and the only voter is the "
                "leader itself: server 2, now an observer, fetches A, but its fetches do not count. A is on "
                "both logs and never committed: a lasso of 13 states that stutters. ValuesNotStuck and "
                "ReconfigurationNotStuck hold on it (A is everywhere, the removal committed)."
            ),
        ),
        Scenario(
            id="Q-reconfig-two-at-once",
            title="two voters changed at once: the old and the new voter sets decide apart",
            model="quorum",
            options={**ANCHOR, "max_reconfigs": 1, "reconfig_rule": "two-at-once"},
            properties=("LeaderHasAllAckedValues",),
            expect="violated",
            trace_length=9,
            story=(
                "Three voters, server 1 leading epoch 1. Server 2 stands for election in epoch 2 and server 3 "
                "votes for it: {2,3} is a majority of the old voter set. Leader 1 writes A and, against the "
                "one-at-a-time rule, removes servers 2 and 3 in one entry: it uses voters {1} at once, of which "
                "it alone is a majority, so the next fetch commits A and acknowledges it. Server 2 leads "
                "epoch 2 without A: two majorities with no server in common decided, and the newest leader "
                "lacks an acknowledged value. The spec's rule (one voter at a time) keeps every invariant at "
                "these bounds as far as the search was run, and to completion with fetches bounded "
                "(Q-reconfig-one-at-a-time)."
            ),
        ),
        Scenario(
            id="Q-reconfig-one-at-a-time",
            title="one voter at a time: at the two-majorities pitfall's bounds, with two fetches, no two majorities "
                  "decide",
            model="quorum",
            options=dict(RECONFIG_FETCHES),
            properties=("NoIllegalState", *SAFETY, "StatesMatchRoles"),
            expect="holds",
            story=(
                "Q-reconfig-two-at-once's fixed form, checked to completion: three voters, server 1 leading "
                "epoch 1, one value, one election, one reconfiguration by the spec's rule (one voter added or "
                "removed, once the leader's voter set and an entry of its epoch are committed), and at most two "
                "FetchRequests in a run (--max-fetches 2, a bound of the search: the pitfall needs one, and "
                "two are the fewest with which the spec's rule commits a value under a new voter set, which it "
                "does in 528 states, 512 of them with the election begun). Any majority of the old voter set "
                "and any majority of the new one share a server, which refuses the candidate whose log lacks "
                "the value: every invariant holds over 59,902 states, depth 17. The pitfall's own rule at "
                "these bounds fails in the same 9 states as without the bound."
            ),
        ),
        Scenario(
            id="Q-disruptive-timeout",
            title="without pre-vote, a server whose fetches time out bumps the epoch past a leader everyone follows",
            model="quorum",
            options=dict(PRE_VOTE_ANCHOR),
            properties=("LeaderNotDisrupted",),
            expect="violated",
            trace_length=2,
            story=(
                "KIP-996's pitfall in its shortest form. Server 1 leads epoch 1 and servers 2 and 3 follow it "
                "(kip_996's Init). Server 2's fetches time out (a lost fetch, a partition from the leader only): "
                "KRaft.tla's RequestVote makes it a Candidate of epoch 2 at once, and its vote requests will "
                "take server 3 and the leader, which both work, out of epoch 1. TLC finds the same 2-state "
                "trace on KRaft.tla with kip_996's Init."
            ),
        ),
        Scenario(
            id="Q-prevote-not-disrupted",
            title="with pre-vote, no timeout takes a server past the epoch of a leader the others follow",
            model="quorum",
            options={**PRE_VOTE_ANCHOR, "pre_vote": True},
            properties=("NoIllegalState", *SAFETY, "LeaderNotDisrupted", "MajorityLeaderNotDisrupted"),
            expect="holds",
            story=(
                "Q-disruptive-timeout's fixed form, at its bounds: the server whose fetches time out becomes "
                "Prospective in its epoch and asks for pre-votes; the leader and a follower that fetches "
                "refuse, so it goes back to following. One timeout never disrupts a leader that every other "
                "server, or a majority, follows, and every invariant holds: 13,864 states, depth 30, as TLC "
                "on KRaft.tla with kip_996's pre-vote steps."
            ),
        ),
        Scenario(
            id="Q-prevote-two-timeouts",
            title="with pre-vote, two servers that time out together still depose a leader a majority follows again",
            model="quorum",
            options={**PRE_VOTE_ANCHOR, "pre_vote": True, "max_elections": 2},
            properties=("MajorityLeaderNotDisrupted",),
            expect="violated",
            trace_length=11,
            story=(
                "What pre-vote does not prevent. Servers 2 and 3 both time out and ask for pre-votes; server 2, "
                "Prospective, grants 3's (it has no leader it fetches from either). Server 2 fails to get a "
                "majority and goes back to following leader 1, which a majority follows again; then server 3 "
                "counts 2's earlier grant and stands for election in epoch 2. A grant is judged when it is "
                "given, as kip_996's GrantPreVote does. TLC finds the same 11-state trace."
            ),
        ),
        Scenario(
            id="Q-prevote-leader-elected",
            title="with pre-vote, a state without a functional leader always leads to one (EventuallyLeaderElected)",
            model="quorum",
            options={**PRE_VOTE_ANCHOR, "pre_vote": True},
            properties=("EventuallyLeaderElected",),
            expect="holds",
            story=(
                "kip_996's liveness property under its fairness (each step of each server weakly fair but "
                "Restart and ClientRequest): once a timeout has left the quorum without a leader that a "
                "majority names, every fair behaviour elects one, unless the last election allowed was spent "
                "and no server leads (13,864 states)."
            ),
        ),
        Scenario(
            id="Q-base",
            title="pull-based Raft at 3 voters, one value, one election: every invariant holds",
            model="quorum",
            options=dict(ANCHOR),
            properties=("NoIllegalState", *SAFETY),
            expect="holds",
            story=(
                "One election, a leader, a value written, fetched by the followers and committed by the "
                "majority's fetch offsets: 10,468 states, depth 30, the counts TLC gives on KRaft.tla "
                "without its VIEW and SYMMETRY."
            ),
        ),
    ]
