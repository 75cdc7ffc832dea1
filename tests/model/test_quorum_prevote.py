"""KIP-996's pre-vote in the metadata quorum (``--pre-vote``, ``isrcheck.model.quorum.prevote``): off
by default (KRaft.tla's states unchanged), its counts equal TLC's on KRaft.tla with kip_996's pre-vote
steps added, who grants a pre-vote, and the generic features (packing, symmetry, view and page, the
Hypothesis bridge) with its Prospective state, its pre-vote messages and its ``fetched`` set.

TLC's figures (the reduction of docs/quorum.md, "Pre-vote (KIP-996)"; one worker, no VIEW, no
SYMMETRY): 2 servers, one value, MaxElections 2, PreVote: 1,393 distinct states, depth 26; 3 servers,
MaxElections 1, PreVote and InitLeader: 13,864, depth 30 (the scenario Q-prevote-not-disrupted).
The scenarios (tests/model/test_scenarios.py) pin the disruption traces, 2 and 11 states as TLC's.
"""

from __future__ import annotations

from hypothesis import settings
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.stateful import run_machine

import isrcheck

SAFETY = ["NoIllegalState", "NoLogDivergence", "NeverTwoLeadersInSameEpoch", "LeaderHasAllAckedValues",
          "AckedValueNotLost"]


def quorum(**options):
    return build_model("quorum", options)


def _reachable(model, limit=3000):
    seen, frontier = set(), list(model.init_states())
    while frontier and len(seen) < limit:
        s = frontier.pop()
        if s in seen:
            continue
        seen.add(s)
        frontier.extend(t for _, t in model.successors(s))
    return seen


def _step(model, state, name, server, peer=0):
    [(action, after)] = [(a, t) for a, t in model.successors(state)
                         if a.name == name and a.server == server and a.peer == peer]
    return action, after


def test_pre_vote_off_keeps_kraft_tla_states():
    plain, off = quorum(), quorum(pre_vote=False, init_leader=False)
    assert off.init_states() == plain.init_states()
    assert "fetched" not in off.state_view(off.init_states()[0])
    assert not any(a.name == "VoterFetchTimeout" for s in _reachable(off, 500) for a, _ in off.successors(s))


def test_two_servers_with_pre_vote_have_tlcs_counts():
    result = isrcheck.check(quorum(voters=2, max_elections=2, pre_vote=True), workers=1)
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == (1_393, 26)


def test_a_follower_that_fetches_refuses_a_pre_vote_and_one_that_has_not_grants_it():
    model = quorum(init_leader=True, pre_vote=True)
    start = model.init_states()[0]
    assert model.state_view(start)["fetched"] == [2, 3]  # kip_996's Init: the followers have fetched
    action, prospective = _step(model, start, "VoterFetchTimeout", 2)
    view = model.state_view(prospective)
    assert (view["state.2"], view["currentEpoch.2"], view["leader.2"]) == ("Prospective", 1, 1)  # no epoch bump
    assert view["fetched"] == [3]
    action, refused = _step(model, prospective, "HandleRequestVoteRequest", 3, 2)
    assert action.detail == "pre-vote refused"
    action, refused_by_leader = _step(model, prospective, "HandleRequestVoteRequest", 1, 2)
    assert action.detail == "pre-vote refused"
    # The same request to a follower that has not fetched since it began following: granted.
    lay = model.layout
    unfetched = prospective[:lay.length] + (0,)
    action, _ = _step(model, unfetched, "HandleRequestVoteRequest", 3, 2)
    assert action.detail == "pre-vote granted"


def test_a_prospective_without_a_majority_follows_its_leader_again():
    model = quorum(init_leader=True, pre_vote=True)
    _, s = _step(model, model.init_states()[0], "VoterFetchTimeout", 2)
    for server in (1, 3):
        _, s = _step(model, s, "HandleRequestVoteRequest", server, 2)
    for peer in (1, 3):
        _, s = _step(model, s, "HandleRequestVoteResponse", 2, peer)
    action, s = _step(model, s, "ConcludePreVote", 2)
    view = model.state_view(s)
    assert action.detail == "no majority: back to following"
    assert (view["state.2"], view["currentEpoch.2"], view["leader.2"]) == ("Follower", 1, 1)


def test_packing_is_exact_and_symmetry_relabels_the_fetched_set():
    model = quorum(voters=3, pre_vote=True, init_leader=True)
    states = _reachable(model, 2000)
    assert len({model.pack(s) for s in states}) == len(states)
    assert all(model.unpack(model.pack(s)) == s for s in states)
    symmetry = model._symmetry
    start = model.init_states()[0]
    swapped = symmetry.relabel(start, (1, 0, 2))  # servers 1 and 2 exchanged: 2 leads, 1 and 3 fetched
    view = model.state_view(swapped)
    assert view["state.2"] == "Leader" and view["fetched"] == [1, 3]
    assert model.canonical(swapped) == model.canonical(start)


def test_symmetry_keeps_the_verdict_with_fewer_states():
    full = isrcheck.check(quorum(voters=2, max_elections=2, pre_vote=True), workers=1)
    reduced = isrcheck.check(quorum(voters=2, max_elections=2, pre_vote=True), symmetry=True, workers=1)
    assert reduced.complete and reduced.ok and reduced.distinct_states < full.distinct_states


def test_every_view_key_is_described_and_the_page_says_what_fetched_means(tmp_path):
    model = quorum(pre_vote=True, init_leader=True)
    docs = model.field_docs()
    for s in list(_reachable(model, 300))[:50]:
        for key in model.state_view(s):
            assert key.split(".")[0] in docs, key
    page = tmp_path / "two.html"
    assert main(["check", "quorum", "--quiet", "--init-leader", "--pre-vote", "--max-elections", "2",
                 "--property", "MajorityLeaderNotDisrupted", "--html", str(page)]) == 1
    text = page.read_text()
    assert "such a Follower refuses pre-votes" in text and "ConcludePreVote" in text
    assert "pre-vote? e1" in text  # the space-time view's label of a pre-vote request


def test_random_walks_with_pre_vote_keep_the_safety_invariants():
    model = quorum(voters=3, values=2, max_elections=4, pre_vote=True)
    run_machine(model, properties=SAFETY, max_steps=30,
                settings=settings(settings.default, max_examples=10, deadline=None))


def test_eventually_leader_elected_holds_without_pre_vote():
    # KRaft.tla's LivenessSpec (WF of Next); the pre-vote form is the scenario Q-prevote-leader-elected.
    result = isrcheck.check(quorum(voters=2, max_elections=2), properties=["EventuallyLeaderElected"], workers=1)
    assert result.complete and result.ok and result.distinct_states == 1_230
    # Without fairness the first state may stutter for ever, leaderless: the property can fail.
    unfair = isrcheck.check(quorum(voters=2, max_elections=2), properties=["EventuallyLeaderElected"],
                            fairness={}, workers=1)
    assert [v.property for v in unfair.violations] == ["EventuallyLeaderElected"]


def test_pre_vote_fairness_is_kip_996s():
    model = quorum(pre_vote=True)
    fair = model.fairness()
    assert fair["VoterFetchTimeout 2"] == fair["HandleRequestVoteRequest 3<-2"] == "weak"
    assert not any(f.startswith(("Restart", "ClientRequest")) for f in fair)
    action, _ = _step(model, model.init_states()[0], "VoterElectionTimeout", 1)
    assert model.action_family(action) == "VoterElectionTimeout 1"


def test_no_two_successors_print_alike_with_pre_vote():
    # Replay finds a step by its action's repr: a pre-vote and a standard vote of the same route and
    # epoch differ by their words ("pre-vote granted").
    model = quorum(values=2, max_elections=2, pre_vote=True, max_crashes=1)
    seen, frontier = set(model.init_states()), list(model.init_states())
    while frontier and len(seen) < 3_000:
        s = frontier.pop(0)
        targets: dict[str, tuple] = {}
        for a, t in model.successors(s):
            assert targets.setdefault(repr(a), t) == t, repr(a)
            if t not in seen:
                seen.add(t)
                frontier.append(t)
    assert any("pre-vote" in repr(a) for s in list(seen)[:500] for a, _ in model.successors(s))
