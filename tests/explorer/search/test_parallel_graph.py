"""The state graph and liveness with ``--workers``: the sharded engine records the same graph as one
process (same ids, parents, depths, labels, done flags, edges in the same order, families coded
alike), so liveness verdicts and lassos are the same for any number of workers
(explorer/search/parallel/graph.py)."""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.liveness.checker import new_graph
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import all_scenarios
from isrcheck.explorer.search.parallel import run_parallel
from isrcheck.explorer.selection import select_properties

from isrcheck import check
from tests.explorer.search.test_parallel import FIXTURES, outcome

SCENARIOS = all_scenarios()
# The classic liveness entries of the catalogue (docs/liveness.md). The KRaft one, KR-never-runs
# (428,317 states, 1.3 million edges), was compared here too at 1 and 2 workers: 45 s of CI's
# 20 minutes for a graph the entries below already cover at 1-3 workers; it runs in one process in
# tests/model/test_scenarios.py and docs/kraft.md's command.
LIVENESS = ["L1", "L1-unclean", "L2", "L3"]
# KRaft liveness at smaller bounds, both verdicts: (options, properties, lasso length or None).
KRAFT = [
    ({"generation": "kraft-kip966", "replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_crashes": 1,
      "stops": "lossy"}, ["EventuallyWriteIsAcceptedOrRejected"], 10),
    ({"generation": "kraft-kip966", "replicas": 2, "min_insync_replicas": 2, "max_records": 1, "max_crashes": 1,
      "stops": "lossy"}, ["EventuallyRuns", "EventuallyUnfenced"], None),
]


def graph_of(result) -> tuple:
    g = result.graph
    return (list(g.keys), list(g.parent), list(g.depth), list(g.bits), bytes(g.done), list(g.src), list(g.dst),
            list(g.fam), list(g.families), list(g.inits))


def lassos(result) -> list[tuple]:
    return [(v.property, v.kind, len(v.trace), v.trace.loop, [s.state for s in v.trace.steps])
            for v in result.violations]


@pytest.mark.parametrize("scenario_id", LIVENESS)
def test_liveness_scenarios_give_the_same_verdicts_lassos_and_graph_with_workers(scenario_id):
    sc = SCENARIOS[scenario_id]
    assert select_properties(build_model(sc.model, dict(sc.options)), list(sc.properties)).liveness
    results = {}
    for workers in (1, 2, 3):
        model = build_model(sc.model, dict(sc.options))
        results[workers] = check(model, properties=list(sc.properties), workers=workers, **dict(sc.check_options))
    one = results[1]
    assert bool(one.violations) == (sc.expect == "violated")
    if one.violations:
        assert len(one.violations[0].trace) == sc.trace_length
    for workers in list(results)[1:]:
        many = results[workers]
        assert many.stats["workers"] == workers and many.stats["parallel_seconds"] > 0  # really sharded
        assert lassos(many) == lassos(one), f"{workers} workers: another lasso"
        assert (many.ok, many.complete, many.distinct_states, many.generated_states) == \
            (one.ok, one.complete, one.distinct_states, one.generated_states)
        assert graph_of(many) == graph_of(one), f"{workers} workers: another graph"


@pytest.mark.parametrize("options,properties,length", KRAFT)
def test_kraft_liveness_gives_the_same_verdicts_lassos_and_graph_with_workers(options, properties, length):
    one = check(build_model("classic", options), properties=properties, workers=1, stop_at_first=False)
    assert [len(v.trace) for v in one.violations] == ([length] if length else [])
    assert one.stats["liveness_checked"] == ", ".join(properties)
    two = check(build_model("classic", options), properties=properties, workers=2, stop_at_first=False)
    assert two.stats["parallel_seconds"] > 0
    assert lassos(two) == lassos(one) and two.stats["liveness_checked"] == one.stats["liveness_checked"]
    assert graph_of(two) == graph_of(one)


@pytest.mark.parametrize("store", ["exact", "fingerprint"])
@pytest.mark.parametrize("name,make,options", [f for f in FIXTURES if f[0] in
                                               ("counters bug, stop", "bits transition, stop", "chain deadlock",
                                                "counters symmetry", "counters bug, continue", "bits symmetry",
                                                "two starts", "counters depth cut")],
                         ids=lambda f: f if isinstance(f, str) else "")
def test_the_graph_is_one_process_graph_where_a_run_stops_mid_level(name, make, options, store):
    """Stopped at an invariant, a transition property or a deadlock, or cut by nothing: the graph
    holds what one process had recorded when it stopped."""
    def run(workers: int):
        model = make()
        graph = new_graph(model, select_properties(model), symmetry=False)
        if workers == 1:
            return _one(model, graph, store, options)
        result = run_parallel(model, select_properties(model), workers=workers, inline_below=0, store=store,
                              graph=graph, **options)
        result.graph = graph
        return result

    one = run(1)
    for workers in (2, 4):
        many = run(workers)
        assert outcome(many) == outcome(one)
        assert graph_of(many) == graph_of(one), f"{workers} workers: another graph"


def _one(model, graph, store, options):
    from isrcheck.explorer.search.local import run_local

    result = run_local(model, select_properties(model), store=store, graph=graph, **options)
    result.graph = graph
    return result


def test_graph_files_are_the_same_with_workers(tmp_path, capsys):
    args = ["check", "classic", "--generation", "kip320", "--replicas", "2", "--quiet", "--graph-stats"]
    assert main([*args, "--graph", str(tmp_path / "one.dot"), "--workers", "1"]) == 0
    one = capsys.readouterr().out
    assert main([*args, "--graph", str(tmp_path / "two.dot"), "--workers", "2"]) == 0
    two = capsys.readouterr().out
    assert (tmp_path / "one.dot").read_text() == (tmp_path / "two.dot").read_text()
    timing = " distinct states/s "  # the one line that differs: seconds, and the processes used
    assert [line for line in one.replace("one.dot", "two.dot").splitlines() if timing not in line] == \
        [line for line in two.splitlines() if timing not in line]
    assert "Graph: 5,973 states, 11,732 edges" in two and "2 processes" in two


def test_max_depth_cuts_the_graph_as_one_process_does():
    opts = {"generation": "kip320", "replicas": 2}
    one = check(build_model("classic", opts), graph=True, workers=1, max_depth=6)
    two = check(build_model("classic", opts), graph=True, workers=2, max_depth=6)
    assert sum(one.graph.done) < len(one.graph)  # the last level is not expanded
    assert graph_of(two) == graph_of(one)
