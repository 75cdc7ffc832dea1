"""The metadata quorum (``isrcheck.model.quorum``): its counts equal TLC's on KRaft.tla, its shortest
counterexample is TLC's, its packing is exact, its view is described, its options and property
names are validated, and it runs on every core and under Hypothesis.

TLC's figures (Vanlightly/raft-tlaplus, specifications/pull-raft/KRaft.tla, its cfg without VIEW and
SYMMETRY, 3 servers, Value {v1}; docs/quorum.md has the commands): MaxElections 1, MaxRestarts 0:
10,468 distinct states, depth 30, every invariant holds; MaxRestarts 1: NoIllegalState violated with
a 7-state trace (225 distinct states at the stop), and the other invariants hold over 135,343
distinct states, depth 43.
"""

from __future__ import annotations

import pytest
from hypothesis import settings
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.stateful import find_violation, machine_for, run_machine
from isrcheck.explorer.traces.replay import evaluate, replay_actions

import isrcheck

SAFETY = ["NoLogDivergence", "NeverTwoLeadersInSameEpoch", "LeaderHasAllAckedValues", "AckedValueNotLost"]


def quorum(**options):
    return build_model("quorum", options)


def test_complete_run_has_tlcs_counts():
    result = isrcheck.check(quorum(), workers=1)
    assert result.complete and result.ok and not result.vacuous
    assert (result.distinct_states, result.depth) == (10_468, 30)


@pytest.mark.parametrize("options, counts", [
    ({"voters": 2, "max_elections": 2}, (1_230, 27)),
    ({"voters": 2, "max_elections": 3}, (37_706, 37)),
])
def test_two_servers_have_tlcs_counts(options, counts):
    # Two servers reach the error paths of fetching (RejectFetchRequest) that one election does not.
    result = isrcheck.check(quorum(**options), workers=1)
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == counts


def test_two_servers_with_a_restart_have_tlcs_counts():
    result = isrcheck.check(quorum(voters=2, max_elections=2, max_crashes=1), properties=SAFETY, workers=1)
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == (11_169, 32)


@pytest.mark.slow
def test_symmetry_with_a_restart_gives_tlcs_orbit_count():
    result = isrcheck.check(quorum(max_crashes=1), properties=SAFETY, symmetry=True, workers=1)
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == (22_611, 43)


def test_committed_entries_reach_a_majority():
    result = isrcheck.check(quorum(), properties=["CommittedEntriesReachMajority", "ValueAcknowledged"], workers=1)
    assert result.complete and result.ok and not result.vacuous


def test_restart_gives_tlcs_illegal_state_trace():
    result = isrcheck.check(quorum(max_crashes=1), properties=["NoIllegalState"], workers=1)
    [violation] = result.violations
    names = [a.name for a in violation.trace.actions]
    assert names == ["RequestVote", "HandleRequestVoteRequest", "Restart", "HandleRequestVoteResponse",
                     "BecomeLeader", "HandleBeginQuorumRequest"]
    assert len(violation.trace) == 7 and result.distinct_states == 225  # TLC: 225 distinct at the stop


def test_two_elections_and_a_restart_give_tlcs_two_leaders_trace():
    # TLC, MaxElections 2, MaxRestarts 1, NoIllegalState left out: NeverTwoLeadersInSameEpoch, 11 states.
    result = isrcheck.check(quorum(max_elections=2, max_crashes=1), properties=["NeverTwoLeadersInSameEpoch"],
                            workers=1)
    [violation] = result.violations
    assert [a.name for a in violation.trace.actions] == [
        "RequestVote", "RequestVote", "HandleRequestVoteRequest", "Restart", "HandleRequestVoteResponse",
        "BecomeLeader", "HandleBeginQuorumRequest", "HandleRequestVoteRequest", "HandleRequestVoteResponse",
        "BecomeLeader"]


def test_a_persisted_restart_comes_back_in_its_election_state():
    model = quorum(max_crashes=1, restart="persisted")
    result = isrcheck.check(quorum(max_crashes=1), properties=["NoIllegalState"], workers=1)
    voted = result.violations[0].trace.steps[2].state  # server 2 has just voted for server 1
    [(action, after)] = [(a, t) for a, t in model.successors(voted) if a.name == "Restart" and a.server == 2]
    view = model.state_view(after)
    assert view["state.2"] == "Voted" and view["votedFor.2"] == 1 and view["restartCtr"] == 1


@pytest.mark.slow
def test_a_persisted_restart_keeps_every_invariant():
    result = isrcheck.check(quorum(max_crashes=1, restart="persisted"), workers=1)
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == (117_449, 33)


@pytest.mark.slow
def test_restart_keeps_the_safety_invariants_with_tlcs_counts():
    result = isrcheck.check(quorum(max_crashes=1), properties=SAFETY, workers=1)
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == (135_343, 43)


def test_every_core_gives_the_one_process_counts():
    one = isrcheck.check(quorum(), workers=1)
    two = isrcheck.check(quorum(), workers=2)
    assert (two.distinct_states, two.generated_states, two.depth) == (one.distinct_states, one.generated_states,
                                                                      one.depth)


def _reachable(model, limit=3000):
    seen, frontier = set(), list(model.init_states())
    while frontier and len(seen) < limit:
        s = frontier.pop()
        if s in seen:
            continue
        seen.add(s)
        frontier.extend(t for _, t in model.successors(s))
    return seen


def test_packing_is_exact_on_reachable_states():
    model = quorum(max_crashes=1)
    states = _reachable(model)
    packed = {model.pack(s) for s in states}
    assert len(packed) == len(states)
    assert all(model.unpack(model.pack(s)) == s for s in states)


def test_every_view_key_is_described():
    model = quorum()
    docs = model.field_docs()
    state = next(iter(_reachable(model, 200)))
    for key in model.state_view(state):
        assert key.split(".")[0] in docs, key


@pytest.mark.parametrize("args, words", [
    (["--voters", "0"], "voters=0: the quorum has 1 to 5 voters"),
    (["--values", "9"], "values=9: clients write 1 to 8 values"),
    (["--max-elections", "-1"], "max_elections=-1"),
    (["--invariant", "TwoLeaders"], "unknown property 'TwoLeaders'; this model has: NoIllegalState"),
    (["--property-set", "Foo"], "unknown for the quorum: Foo; choose from NoIllegalState"),
    (["--restart", "persisted"], "restart='persisted' has no effect with max_crashes=0"),
    (["--restart", "lazy", "--max-crashes", "1"], "lazy"),
])
def test_bad_input_is_refused_with_exit_2(capsys, args, words):
    assert main(["check", "quorum", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_the_page_describes_the_fields(tmp_path):
    page = tmp_path / "restart.html"
    assert main(["check", "quorum", "--quiet", "--max-crashes", "1", "--html", str(page)]) == 1
    text = page.read_text()
    assert "the network: every message sent" in text and "HandleBeginQuorumRequest" in text
    assert "BeginQuorum e2" in text  # the space-time view's message label


def test_the_space_time_view_follows_each_message_from_sender_to_receiver():
    model = quorum(max_crashes=1)
    result = isrcheck.check(model, properties=["NoIllegalState"], workers=1)
    steps = result.violations[0].trace.steps
    events = [model.swimlane(a.action, b.state, a.state) for b, a in zip(steps, steps[1:], strict=False)]
    sent = {m["id"]: e["lane"] for e in events for m in e["send"]}
    begin = events[-1]  # server 2 handles the BeginQuorum server 1 sent when it became leader
    assert begin["lane"] == "server 2" and begin["receive"] == ["BeginQuorumRequest 1->2 epoch 2"]
    assert sent["BeginQuorumRequest 1->2 epoch 2"] == "server 1"
    assert all(r in sent for e in events for r in e["receive"])  # nothing is delivered that was not sent


def test_random_walks_past_the_bounds_keep_the_safety_invariants():
    model = quorum(voters=3, values=2, max_elections=4)
    run_machine(model, properties=SAFETY, max_steps=40,
                settings=settings(settings.default, max_examples=25, deadline=None))


def test_symmetry_gives_tlcs_orbit_count():
    # TLC on KRaft.tla with its SYMMETRY symmServers (no VIEW), same constants: 1,759 distinct, depth 30.
    result = isrcheck.check(quorum(), symmetry=True, workers=1)
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == (1_759, 30)


def test_relabelled_reachable_states_are_reachable_and_share_a_canonical_form():
    model = quorum()
    reachable = _reachable(model, limit=20_000)
    assert len(reachable) == 10_468
    symmetry = model._symmetry
    for s in list(reachable)[::50]:
        for p in symmetry.perms:
            t = symmetry.relabel(s, p)
            assert t in reachable
            assert model.canonical(t) == model.canonical(s)


def test_random_walks_find_the_restart_trace_shrunk_and_it_replays():
    options = {"max_crashes": 1}
    model = quorum(**options)
    machine = machine_for(model, properties=["NoIllegalState"], max_steps=15, spec="quorum", options=options)
    found = find_violation(machine, settings=settings(max_examples=300, deadline=None, derandomize=True))
    assert found is not None and found.violation.property == "NoIllegalState"
    trace = replay_actions(model, found.actions, found.init_index)
    assert trace == found.violation.trace
    assert evaluate(model, trace, ["NoIllegalState"]).violated[0][:2] == ("NoIllegalState", len(trace))
    assert len(trace) >= 7  # never shorter than breadth-first search's shortest


def test_values_not_stuck_holds_without_a_restart():
    # TLC, LivenessSpec, PROPERTY ValuesNotStuck, MaxElections 1, MaxRestarts 0: holds over 10,468 states.
    result = isrcheck.check(quorum(), properties=["ValuesNotStuck"], workers=1)
    assert result.complete and result.ok and result.distinct_states == 10_468


@pytest.mark.slow
def test_values_stuck_after_a_restart_is_tlcs_lasso():
    # TLC, MaxRestarts 1: ValuesNotStuck violated by a lasso of 17 states ending in stuttering.
    result = isrcheck.check(quorum(max_crashes=1), properties=["ValuesNotStuck"], workers=1)
    [violation] = result.violations
    assert violation.property == "ValuesNotStuck" and len(violation.trace) == 17
    assert "Restart" in [a.name for a in violation.trace.actions]


def test_no_two_successors_of_a_state_print_alike():
    # Replay and regressions find a step by its action's repr: every message a step handles is named
    # by the fields that tell it from another of the same route and epoch.
    model = quorum(values=2, max_elections=2, max_crashes=1)
    seen, frontier = set(model.init_states()), list(model.init_states())
    while frontier and len(seen) < 20_000:
        s = frontier.pop(0)
        targets: dict[str, tuple] = {}
        for a, t in model.successors(s):
            assert targets.setdefault(repr(a), t) == t, repr(a)
            if t not in seen:
                seen.add(t)
                frontier.append(t)
