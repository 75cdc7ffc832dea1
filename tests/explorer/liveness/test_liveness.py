"""Liveness with known answers: eventually and leads-to under no, weak and strong fairness, on the
small models of ``tests/fixtures/liveness_models.py`` and ``docs/examples/mutex.py``; lassos in text,
ITF, replay and exported regressions; the graph options of the command line."""

from __future__ import annotations

import importlib.util
import json

import networkx as nx
import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.traces.itf import read_itf, trace_to_itf, write_json
from isrcheck.explorer.traces.regression import regression_source
from isrcheck.explorer.traces.replay import Divergence, close_loop, evaluate, load_and_replay, replay_actions
from isrcheck.explorer.traces.text import render_violation

from isrcheck import Property, UserError, check
from tests.fixtures.paths import ROOT

MUTEX = str(ROOT / "docs" / "examples" / "mutex.py")
FIXTURES = str(ROOT / "tests" / "fixtures" / "liveness_models.py")


def mutex(variant: str, fairness: str):
    return build_model(MUTEX, {"variant": variant, "declared_fairness": fairness})


def fixture(name: str, **options):
    return build_model(f"{FIXTURES}:make_{name}", options)


def verdict(model, prop: str):
    result = check(model, properties=[prop])
    assert result.complete or result.violations
    return result.violation(prop)


# -- known answers ----------------------------------------------------------------------------------


def test_mutex_starves_b_without_fairness_and_not_under_weak_fairness():
    stutter = verdict(mutex("weak", "none"), "BEnters")
    assert stutter is not None and stutter.trace.loop_action is None and len(stutter.trace) == 1
    # Only A is fair: A's think/rest loop forever while B's enter stays enabled and is never taken.
    starved = verdict(mutex("weak", "a-only"), "BEnters")
    assert starved is not None and repr(starved.trace.loop_action) == "'rest(A)'"
    assert [s[1] for s in starved.trace.states] == ["waiting", "waiting"]
    assert verdict(mutex("weak", "weak"), "BEnters") is None
    assert verdict(mutex("weak", "weak"), "WaitingLeadsToCritical") is None


def test_mutex_that_needs_strong_fairness():
    starved = verdict(mutex("strong", "weak"), "BEnters")
    assert starved is not None
    assert [repr(a) for a in starved.trace.actions] == ["'take(A)'"]
    assert repr(starved.trace.loop_action) == "'release(A)'" and starved.trace.loop == 0
    assert verdict(mutex("strong", "weak"), "WaitingLeadsToCritical") is not None
    assert verdict(mutex("strong", "strong"), "BEnters") is None
    assert verdict(mutex("strong", "strong"), "WaitingLeadsToCritical") is None


def test_cycle_with_no_fair_exit():
    for exit_fairness in ("none", "weak"):
        v = verdict(fixture("spin", exit_fairness=exit_fairness), "Leaves")
        assert v is not None, exit_fairness
        assert v.trace.states == ["loop1", "loop2"] and v.trace.loop == 0
        assert repr(v.trace.loop_action) == "'spin(2)'"
    assert verdict(fixture("spin", exit_fairness="strong"), "Leaves") is None


def test_leads_to_holds_vacuously_and_a_real_one_fails_without_fairness():
    model = fixture("vacuous")
    assert verdict(model, "BigLeadsToZero") is None  # its trigger never holds: nothing to prove
    failing = verdict(model, "OneLeadsToTwo")  # no fairness: stutter at 1 forever
    assert failing is not None and failing.trace.states == [0, 1] and failing.trace.loop_action is None


def test_stuttering_at_a_deadlock():
    model = fixture("stop")
    assert verdict(model, "ReachesMiddle") is None  # step is weakly fair: start cannot stutter forever
    v = verdict(model, "Finishes")
    assert v.trace.states == [("start",), ("middle",)] and v.trace.loop == 1 and v.trace.loop_action is None
    # Deadlocks are not errors unless asked (TLC's -deadlock is the default here).
    result = check(model, properties=["Finishes"], stop_at_first=False, check_deadlock=True)
    assert {x.property for x in result.violations} == {"Finishes", "deadlock"}


def test_fairness_override_and_described_in_the_result():
    result = check(mutex("strong", "strong"), properties=["BEnters"], fairness={"take": "weak", "release": "weak"})
    assert result.violation("BEnters") is not None
    assert result.stats["fairness"] == "weak fairness of release, take"
    with pytest.raises(UserError, match="weak' or 'strong"):
        check(mutex("strong", "strong"), properties=["BEnters"], fairness={"take": "fair"})


# -- what runs, and what is refused -------------------------------------------------------------------


def test_safety_runs_keep_no_graph_and_liveness_runs_do():
    model = mutex("strong", "strong")
    safety = build_model(str(ROOT / "tests" / "fixtures" / "racy_lock.py"))
    assert check(safety).graph is None
    live = check(model, properties=["BEnters"])
    assert live.graph is not None and len(live.graph) == live.distinct_states == 3


def test_liveness_takes_one_process_by_default_and_shards_with_an_explicit_count():
    from isrcheck.explorer.check import available_cores

    model = mutex("strong", "strong")
    safety = build_model(str(ROOT / "tests" / "fixtures" / "racy_lock.py"))
    assert check(safety).stats["workers"] == available_cores()  # safety: every core by default
    live = check(model, properties=["BEnters"])
    # the graph: one process by default (the sharded graph measures slower on two cores)
    assert live.graph is not None and live.stats.get("workers", 1) == 1
    two = check(mutex("strong", "strong"), properties=["BEnters"], workers=2)
    assert two.stats["workers"] == 2 and len(two.graph) == len(live.graph) == 3
    assert [v.property for v in two.violations] == [v.property for v in live.violations]


def test_spark_engine_and_symmetry_refuse_liveness():
    with pytest.raises(UserError, match="spark engine does not check liveness properties"):
        check(mutex("strong", "strong"), engine="spark", properties=["BEnters"])
    with pytest.raises(UserError, match="symmetry"):
        check(mutex("strong", "strong"), properties=["BEnters"], symmetry=True)


def test_an_unexpanded_state_ends_no_behaviour():
    # Cut at depth 1, the initial state is not expanded: no lasso may be claimed through it.
    result = check(mutex("strong", "none"), properties=["BEnters"], max_depth=1)
    assert not result.violations and not result.complete


def test_model_property_contract():
    p = Property.leads_to("X", lambda s: True, lambda s: False)
    assert p.kind.value == "leads-to" and p.kind.is_liveness and p.target is not None


# -- lassos: text, ITF, replay, regression --------------------------------------------------------------


def test_lasso_text_marks_the_loop():
    model = mutex("strong", "weak")
    text = render_violation(model, check(model, properties=["BEnters"]).violations[0])
    assert "violated by a lasso: 0 state(s) of prefix, then a loop of 2 state(s)" in text
    assert "State 1: initial state   <- the loop starts here" in text
    assert "'release(A)': back to state 1" in text
    stop = fixture("stop")
    text = render_violation(stop, check(stop, properties=["Finishes"]).violations[0])
    assert "State 2 stutters forever (no fairly scheduled action is enabled): back to state 2" in text


def test_lasso_itf_replay_and_tampering(tmp_path):
    opts = {"variant": "strong", "declared_fairness": "weak"}
    model = build_model(MUTEX, opts)
    v = check(model, properties=["BEnters"]).violations[0]
    data = trace_to_itf(model, v.trace, {"model": MUTEX, "options": opts, "property": v.property, "kind": v.kind})
    assert data["loop"] == 0 and data["#meta"]["loop_action"] == "'release(A)'"
    path = tmp_path / "lasso.itf.json"
    write_json(path, data)
    _, replayed = load_and_replay(read_itf(path), MUTEX)
    assert replayed.trace.loop == 0 and replayed.violates("BEnters")
    # The same lasso under strong fairness of enter is not fair: not a counterexample there.
    strong = build_model(MUTEX, {"variant": "strong", "declared_fairness": "strong"})
    assert not evaluate(strong, replayed.trace, ["BEnters"]).violates("BEnters")
    # A loop that does not close is a divergence.
    with pytest.raises(Divergence, match="does not lead back"):
        close_loop(model, replayed.trace, 1, "'release(A)'")
    data["loop"] = 7
    write_json(path, data)
    code = main(["replay", str(path)])
    assert code == 2


def test_lasso_cli_trace_json_replay_and_regression(tmp_path, capsys):
    trace_file, regression = tmp_path / "l.itf.json", tmp_path / "test_lasso_regression.py"
    code = main(["check", MUTEX, "--declared-fairness", "weak", "--property", "BEnters", "--trace-json",
                 str(trace_file), "--regression", str(regression)])
    out = capsys.readouterr().out
    assert code == 1 and "Liveness (BEnters) checked under weak fairness of enter, release, take." in out
    assert json.loads(trace_file.read_text())["loop"] == 0
    assert main(["replay", str(trace_file), "--model", MUTEX]) == 1
    assert "=> BEnters fails at state 1" in capsys.readouterr().out
    spec = importlib.util.spec_from_file_location("lasso_regression", regression)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.test_benters_lasso_reproduces()


def test_regression_of_a_stuttering_lasso_replays():
    model = fixture("stop")
    v = check(model, properties=["Finishes"]).violations[0]
    source = regression_source(f"{FIXTURES}:make_stop", {}, v)
    assert "LOOP = 1" in source and "LOOP_ACTION = None" in source
    trace = close_loop(model, replay_actions(model, [repr(a) for a in v.trace.actions]), 1, None)
    assert evaluate(model, trace, ["Finishes"]).violates("Finishes")


# -- the graph options --------------------------------------------------------------------------------


def test_graph_files_and_stats(tmp_path, capsys):
    graphml, dot = tmp_path / "g.graphml", tmp_path / "g.dot"
    assert main(["check", MUTEX, "--graph", str(graphml), "--graph-stats"]) == 0
    out = capsys.readouterr().out
    assert "Graph: 3 states, 3 edges (3 distinct), 3 expanded." in out
    assert "Strongly connected components: 2; the largest has 2 states" in out
    assert "States per depth: 1:1, 2:2" in out and "Diameter of the largest component: 1." in out
    g = nx.read_graphml(graphml)
    assert g.number_of_nodes() == 3 and g.number_of_edges() == 3
    assert sorted(d["family"] for _, _, d in g.edges(data=True)) == ["enter", "release", "take"]
    assert main(["check", MUTEX, "--graph", str(dot)]) == 0
    assert dot.read_text().count("->") == 3
    capsys.readouterr()
    assert main(["check", MUTEX, "--graph", str(tmp_path / "big.dot"), "--graph-limit", "2"]) == 0
    assert "more than --graph-limit 2" in capsys.readouterr().err and not (tmp_path / "big.dot").exists()


@pytest.mark.parametrize("argv, message", [
    (["--graph", "g.txt"], "use .graphml or .dot"),
    (["--fairness", "enter=sometimes"], "FAMILY=weak|strong"),
    (["--graph-limit", "0"], "positive"),
    (["--engine", "spark", "--property", "BEnters"], "does not check liveness"),
])
def test_graph_and_fairness_bad_input_exit_2(capsys, argv, message):
    assert main(["check", MUTEX, *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_run_stopped_by_a_safety_violation_checks_no_liveness(capsys):
    result = check(fixture("stop"), properties=["Finishes"], check_deadlock=True)
    assert [v.property for v in result.violations] == ["deadlock"] and "liveness_checked" not in result.stats
    assert main(["check", f"{FIXTURES}:make_stop", "--property", "Finishes", "--deadlock"]) == 1
    assert "Liveness not checked: the run stopped first" in capsys.readouterr().out
