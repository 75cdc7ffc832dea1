"""KIP-853's dynamic voters in the quorum model (``--max-reconfigs``; ``isrcheck.model.quorum.reconfig``):
the initial state is KRaftWithReconfig's, a server uses the newest voter set in its log, only a
voter's fetch moves the high watermark, a leader that removes itself leads until the removal
commits and then resigns, the options are validated, symmetry keeps the servers that differ apart,
and the states pack, print, replay and describe themselves. The catalogue's verdicts are checked by
tests/model/test_scenarios.py (Q-reconfig-*)."""

from __future__ import annotations

import pytest
from hypothesis import settings
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.stateful import run_machine

import isrcheck

JOIN = {"voters": 2, "joining": 1, "values": 0, "max_elections": 0, "max_reconfigs": 1}
TWO_AT_ONCE = {"voters": 3, "values": 1, "max_elections": 1, "max_reconfigs": 1}
SAFETY = ["NoIllegalState", "NoLogDivergence", "NeverTwoLeadersInSameEpoch", "LeaderHasAllAckedValues",
          "AckedValueNotLost", "StatesMatchRoles"]


def quorum(**options):
    return build_model("quorum", options)


def walk(model, *steps: str):
    """The states along the named steps, each a prefix of an action's repr, from the initial state."""
    state = model.init_states()[0]
    states = [state]
    for step in steps:
        matches = [t for a, t in model.successors(state) if repr(a).startswith(step)]
        assert len(matches) == 1, (step, [repr(a) for a, _ in model.successors(state)])
        state = matches[0]
        states.append(state)
    return states


def test_without_reconfigurations_the_state_keeps_its_shape():
    model = quorum()
    assert model.layout.reconfigs is None and len(model.init_states()[0]) == 3 * 9 + 4
    assert "StatesMatchRoles" not in {p.name for p in model.properties()}


def test_the_initial_state_is_kraft_with_reconfigs():
    model = quorum(**JOIN)
    view = model.state_view(model.init_states()[0])
    assert (view["state.1"], view["leader.2"], view["highWatermark.2"]) == ("Leader", 1, 1)
    assert view["log.1"] == view["log.2"] == [{"epoch": 1, "value": "voters{1,2}"}]
    assert view["config.1"] == {"voters": [1, 2], "committed": True} and view["role.1"] == "Voter"
    assert view["log.3"] == [] and view["role.3"] == "Observer" and view["state.3"] == "Follower"
    assert view["_reconfigCtr"] == 0


def test_a_joining_server_becomes_a_voter_when_the_entry_reaches_its_log():
    model = quorum(**JOIN)
    states = walk(model, "AddVoter(1", "SendFetchRequest(3 <- 1", "AcceptFetchRequest(1 <- 3",
                  "HandleSuccessFetchResponse(3", "SendFetchRequest(3 <- 1", "AcceptFetchRequest(1 <- 3",
                  "HandleSuccessFetchResponse(3")
    views = [model.state_view(s) for s in states]
    assert views[1]["config.1"] == {"voters": [1, 2, 3], "committed": False}  # used before it commits
    assert views[4]["role.3"] == "Observer" and views[4]["config.3"]["voters"] == [1, 2]
    assert views[-1]["role.3"] == "Voter" and views[-1]["config.3"] == {"voters": [1, 2, 3], "committed": False}
    assert all(v["highWatermark.1"] == 1 for v in views)  # an observer's fetches moved nothing


def test_a_leader_that_removes_itself_leads_until_the_removal_commits_then_resigns():
    model = quorum(**JOIN)
    states = walk(model, "RemoveVoter(1, epoch=1, remove 1", "SendFetchRequest(2 <- 1", "AcceptFetchRequest(1 <- 2",
                  "HandleSuccessFetchResponse(2", "SendFetchRequest(2 <- 1", "AcceptFetchRequest(1 <- 2")
    views = [model.state_view(s) for s in states]
    assert views[1]["role.1"] == "Observer" and views[1]["state.1"] == "Leader"
    assert all(v["state.1"] == "Leader" for v in views[1:-1])
    assert views[4]["config.2"]["voters"] == [2]
    last = views[-1]  # server 2's fetch past the removal commits it (a majority of {2}): the leader resigns
    assert (last["state.1"], last["leader.1"], last["highWatermark.1"]) == ("Unattached", None, 0)
    assert any("leader - hwm 2" in m for m in last["messages"])  # the response names no leader


def test_the_spec_rule_changes_one_voter_at_a_time_after_a_commit_of_the_leaders_epoch():
    model = quorum(**TWO_AT_ONCE)
    names = [repr(a) for a, _ in model.successors(model.init_states()[0])]
    assert [n for n in names if "Voter" in n] == ["RemoveVoter(1, epoch=1, remove 1: voters{2,3})",
                                                  "RemoveVoter(1, epoch=1, remove 2: voters{1,3})",
                                                  "RemoveVoter(1, epoch=1, remove 3: voters{1,2})"]
    wide = quorum(**TWO_AT_ONCE, reconfig_rule="two-at-once")
    assert any("remove 2 and 3: voters{1}" in repr(a) for a, _ in wide.successors(wide.init_states()[0]))
    # a new leader has committed nothing of its epoch yet: it may not reconfigure until it has
    elected = walk(model, "RequestVote(2", "HandleRequestVoteRequest(3 <- 2", "HandleRequestVoteResponse(2 <- 3",
                   "BecomeLeader(2")[-1]
    assert not [a for a, _ in model.successors(elected) if a.server == 2 and "Voter" in a.name]
    eager = quorum(**TWO_AT_ONCE, reconfig_rule="before-epoch-commit")
    assert [a for a, _ in eager.successors(elected) if a.server == 2 and "Voter" in a.name]


def test_the_spec_rule_holds_where_two_at_once_fails():
    # Q-reconfig-two-at-once breaks LeaderHasAllAckedValues in 9 states; with the spec's rule every
    # invariant holds to that depth (a complete run at these bounds is past a million states; with two
    # fetches it is complete: Q-reconfig-one-at-a-time).
    result = isrcheck.check(quorum(**TWO_AT_ONCE), properties=SAFETY, max_depth=9, workers=1)
    assert result.ok and result.depth == 9 and result.distinct_states > 5_000


def test_symmetry_keeps_the_initial_leader_and_finds_the_same_trace():
    model = quorum(**TWO_AT_ONCE, reconfig_rule="two-at-once")
    assert model._symmetry.perms == ((0, 2, 1),)  # servers 2 and 3 swap; server 1 leads Init
    plain = isrcheck.check(model, properties=["LeaderHasAllAckedValues"], workers=1)
    reduced = isrcheck.check(model, properties=["LeaderHasAllAckedValues"], workers=1, symmetry=True)
    assert len(reduced.violations[0].trace) == len(plain.violations[0].trace) == 9
    assert reduced.distinct_states < plain.distinct_states


def test_relabelled_states_share_a_canonical_form():
    model = quorum(voters=3, joining=1, values=0, max_elections=0, max_reconfigs=1)
    seen, frontier = set(model.init_states()), list(model.init_states())
    while frontier and len(seen) < 1_500:
        s = frontier.pop(0)
        for _, t in model.successors(s):
            if t not in seen:
                seen.add(t)
                frontier.append(t)
    symmetry = model._symmetry
    for s in list(seen)[::25]:
        for p in symmetry.perms:
            t = symmetry.relabel(s, p)
            assert model.canonical(t) == model.canonical(s)
            assert symmetry.relabel(t, p) == s  # a swap twice is the identity


def test_states_pack_exactly_print_their_steps_apart_and_every_view_key_is_described():
    model = quorum(**JOIN)
    seen, frontier = set(model.init_states()), list(model.init_states())
    while frontier and len(seen) < 2_000:
        s = frontier.pop(0)
        targets: dict[str, tuple] = {}
        for a, t in model.successors(s):
            assert targets.setdefault(repr(a), t) == t, repr(a)  # replay finds a step by its repr
            if t not in seen:
                seen.add(t)
                frontier.append(t)
    assert len({model.pack(s) for s in seen}) == len(seen)
    assert all(model.unpack(model.pack(s)) == s for s in seen)
    docs = model.field_docs()
    for key in model.state_view(next(iter(seen))):
        assert key.split(".")[0] in docs, key


def test_the_pitfall_trace_replays_from_its_itf_file_and_its_page_describes_the_new_fields(capsys, tmp_path):
    path, page = tmp_path / "two.itf.json", tmp_path / "two.html"
    assert main(["scenario", "Q-reconfig-two-at-once", "--quiet", "--trace-json", str(path), "--html", str(page)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "Replayed 9 states; every step matches the model." in out
    text = page.read_text()
    assert "the server's voter set: the newest voter-set entry in its log" in text and "ChangeVoters" in text


def test_random_walks_with_reconfigurations_keep_the_safety_invariants():
    model = quorum(voters=3, joining=1, values=1, max_elections=2, max_reconfigs=2)
    run_machine(model, properties=SAFETY, max_steps=40,
                settings=settings(settings.default, max_examples=15, deadline=None))


@pytest.mark.parametrize("args, words", [
    (["--joining", "1"], "joining=1 needs reconfigurations to add a server: set max_reconfigs >= 1"),
    (["--reconfig-rule", "two-at-once"], "reconfig_rule='two-at-once' has no effect with max_reconfigs=0"),
    (["--values", "0"], "values=0: clients write 1 to 8 values"),
    (["--max-reconfigs", "1", "--voters", "4", "--joining", "2"], "at most 5 servers in all"),
    (["--max-reconfigs", "-1"], "max_reconfigs=-1"),
    (["--invariant", "StatesMatchRoles"], "StatesMatchRoles is KIP-853's: add --max-reconfigs 1 (or more)"),
    (["--property-set", "ReconfigurationNotStuck"], "need --max-reconfigs 1 or more"),
])
def test_bad_reconfiguration_options_are_refused_with_exit_2(capsys, args, words):
    assert main(["check", "quorum", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
