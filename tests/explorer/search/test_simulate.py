"""Random simulation (TLC's -simulate): behaviours tried, violations found with real traces,
determinism under a seed, the CLI's exit statuses and bad input."""

from __future__ import annotations

import json

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.search.simulate import simulate

from tests.fixtures.models import Bits, Chain, Counters
from tests.fixtures.paths import ROOT

RACY = str(ROOT / "tests" / "fixtures" / "racy_lock.py")


def test_every_walk_of_counters_reaches_the_bug_at_its_depth():
    # Each step adds one to the sum, so every behaviour hits sum == 4 at its fifth state.
    result = simulate(Counters(3, 5, bug_at=4), depth=20, behaviours=10, seed=7)
    assert result.behaviours == 1 and len(result.violations) == 1
    violation = result.violations[0]
    assert violation.property == "SumBelowBug" and len(violation.trace) == 5
    assert sum(violation.trace.last) == 4


def test_walks_shorter_than_the_bug_find_nothing_and_count_every_behaviour():
    result = simulate(Counters(3, 5, bug_at=4), depth=4, behaviours=50, seed=1)
    assert result.ok and result.behaviours == 50
    assert result.states == 50 * 4 and result.longest == 4


def test_a_walk_stops_at_a_state_without_successors():
    result = simulate(Chain(3), depth=10, behaviours=5, seed=0)
    assert result.ok and result.longest == 3 and result.states == 15


def test_same_seed_same_behaviours_other_seed_other_behaviours():
    def actions(seed):
        res = simulate(Bits(6), depth=12, behaviours=1, seed=seed, properties=["NeverClearBit0"])
        return [a for a in res.violations[0].trace.actions] if res.violations else None

    assert actions(3) == actions(3)
    assert any(actions(s) != actions(3) for s in range(4, 10))


def test_sometimes_properties_are_reported_not_failed():
    result = simulate(Bits(3), depth=10, behaviours=50, seed=0, properties=["AllSet", "MoreThanAllSet"])
    assert result.ok and "AllSet" in result.reached and result.not_reached == ["MoreThanAllSet"]


def test_transition_property_violation_has_the_step_that_broke_it():
    result = simulate(Bits(2), depth=50, behaviours=100, seed=2, properties=["NeverClearBit0"])
    trace = result.violations[0].trace
    assert 0 in trace.states[-2] and 0 not in trace.states[-1]


@pytest.mark.parametrize("bad", [{"depth": 0}, {"behaviours": -1}, {"depth": 2.5}, {"seed": "x"}])
def test_bad_bounds_are_refused_up_front(bad):
    kwargs = {"depth": 5, "behaviours": 5, "seed": 0, **bad}
    with pytest.raises(UserError):
        simulate(Counters(), **kwargs)


def test_cli_finds_the_planted_race_and_writes_a_replayable_trace(capsys, tmp_path):
    out_file = tmp_path / "sim.itf.json"
    code = main(["simulate", RACY, "--depth", "10", "--behaviours", "500", "--seed", "1",
                 "--trace-json", str(out_file)])
    out = capsys.readouterr().out
    assert code == 1
    assert "MutualExclusion (invariant) violated" in out and "behaviours tried (seed 1" in out
    data = json.loads(out_file.read_text())
    assert data["#meta"]["simulation"]["seed"] == 1
    assert main(["replay", str(out_file), "--model", RACY]) == 1  # the trace re-executes to the same violation


def test_cli_no_violation_exits_0_and_says_it_proves_nothing(capsys):
    code = main(["simulate", RACY, "--depth", "2", "--behaviours", "20", "--seed", "0"])
    out = capsys.readouterr().out
    assert code == 0 and "20 behaviours tried" in out and "proves nothing" in out


@pytest.mark.parametrize("argv,words", [
    (["--depth", "0"], "argument --max-depth/--depth: '0' must be at least 1"),
    (["--behaviours", "-3"], "argument --behaviours/--behaviors: '-3' must be at least 1"),
    (["--trace-json", "/nonexistent-dir/t.itf.json"], "--trace-json"),
])
def test_cli_bad_input_is_exit_2_before_the_run(argv, words, capsys):
    code = main(["simulate", RACY, *argv])
    err = capsys.readouterr().err
    assert code == 2 and words in err
