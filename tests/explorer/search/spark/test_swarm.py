"""Swarm simulation on Spark (``isrcheck simulate --engine spark``): the one-process swarm's result
for any partition count, the first violation at the smallest behaviour index, a user's model file
shipped, bad input refused with exit 2 before Spark starts."""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.search.spark.swarm import simulate_spark, waves
from isrcheck.explorer.search.swarm import swarm, walk_chunk
from isrcheck.explorer.selection import select_properties

from tests.explorer.search.test_swarm import outcome
from tests.fixtures.models import Bits, Counters
from tests.fixtures.paths import ROOT

pytestmark = pytest.mark.spark

RACY = str(ROOT / "tests" / "fixtures" / "racy_lock.py")


def test_waves_cover_every_behaviour_once():
    for behaviours, slices in ((1, 4), (300, 3), (5000, 7)):
        ranges = [r for wave in waves(behaviours, slices) for r in wave]
        assert [i for a, b in ranges for i in range(a, b)] == list(range(behaviours))
        assert all(len(wave) <= slices for wave in waves(behaviours, slices))


@pytest.mark.parametrize("partitions", [1, 3, 8])
def test_same_result_as_one_process_for_any_partition_count(spark, partitions):
    kwargs = {"depth": 4, "behaviours": 900, "seed": 11, "properties": ["NeverClearBit0", "AllSet", "MoreThanAllSet"]}
    local = swarm(Bits(5), **kwargs)
    assert local.violations  # the run stops at a violation: which one is the point
    assert outcome(simulate_spark(Bits(5), partitions=partitions, **kwargs)) == outcome(local)


@pytest.mark.parametrize("partitions", [2, 5])
def test_no_violation_same_counts_and_reached(spark, partitions):
    kwargs = {"depth": 6, "behaviours": 700, "seed": 2, "properties": ["AllSet", "MoreThanAllSet"]}
    result = simulate_spark(Bits(4), partitions=partitions, **kwargs)
    assert result.ok and result.behaviours == 700
    assert outcome(result) == outcome(swarm(Bits(4), **kwargs))


def test_the_smallest_behaviour_index_wins_over_violations_found_by_other_tasks(spark):
    model, props = Bits(4), select_properties(Bits(4), ["NeverClearBit0"])
    inits = list(model.init_states())
    first = [i for i in range(256)
             if walk_chunk(model, props, inits, depth=3, seed=5, start=i, stop=i + 1).violation]
    assert len(first) > 4  # every task of the first wave finds violations of its own
    result = simulate_spark(model, depth=3, behaviours=2000, seed=5, properties=["NeverClearBit0"], partitions=4)
    assert result.behaviours == first[0] + 1
    alone = walk_chunk(model, props, inits, depth=3, seed=5, start=first[0], stop=first[0] + 1)
    assert result.violations[0].trace == alone.violation[1].trace


def test_cli_ships_a_model_file_and_exits_1_with_a_replayable_trace(spark, capsys, tmp_path):
    out_file = tmp_path / "swarm.itf.json"
    code = main(["simulate", RACY, "--depth", "10", "--behaviours", "500", "--seed", "1", "--engine", "spark",
                 "--partitions", "3", "--trace-json", str(out_file)])
    out = capsys.readouterr().out
    assert code == 1 and "MutualExclusion (invariant) violated" in out and "Swarm on Spark" in out
    assert main(["replay", str(out_file), "--model", RACY]) == 1


def test_cli_no_violation_exits_0(spark, capsys):
    code = main(["simulate", "classic", "--depth", "8", "--behaviours", "40", "--engine", "spark"])
    assert code == 0 and "40 behaviours tried" in capsys.readouterr().out


@pytest.mark.parametrize("argv,words", [
    (["--master", "local[2]"], "--master applies to --engine spark only"),
    (["--partitions", "3"], "--partitions applies to --engine spark only"),
    (["--engine", "spark", "--partitions", "0"], "argument --partitions: '0' must be at least 1"),
    (["--engine", "dask"], "argument --engine: invalid choice: 'dask'"),
    (["--engine", "spark", "--invariant", "Nope"], "unknown property 'Nope'; this model has: MutualExclusion"),
])
def test_cli_bad_input_is_exit_2_with_the_fix(argv, words, capsys):
    # No fixture: each is refused before a Spark session would start.
    code = main(["simulate", RACY, "--depth", "5", *argv])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err


def test_api_refuses_bad_partitions():
    with pytest.raises(UserError, match="partitions must be an integer >= 1"):
        simulate_spark(Counters(), depth=3, behaviours=3, partitions=0)


@pytest.mark.slow
def test_local_cluster_executors_give_the_one_process_result(spark_cluster):
    """Executors in JVMs and Python workers of their own: a user's model file is shipped, and the
    swarm and a proof come back as in one process."""
    from isrcheck.explorer.registry import load_factory
    from isrcheck.explorer.search.swarm import swarm as one_process

    model = load_factory(f"{RACY}:make_model")()
    kwargs = {"depth": 12, "behaviours": 3000, "seed": 4}
    assert outcome(simulate_spark(model, partitions=3, **kwargs)) == outcome(one_process(model, **kwargs))
    kwargs = {"depth": 4, "behaviours": 900, "seed": 11, "properties": ["NeverClearBit0", "AllSet"]}
    assert outcome(simulate_spark(Bits(5), partitions=5, **kwargs)) == outcome(swarm(Bits(5), **kwargs))


def test_a_model_that_raises_on_an_executor_is_exit_4_with_its_frames(spark, capsys):
    faulty = str(ROOT / "tests" / "fixtures" / "faulty.py")
    code = main(["simulate", faulty, "--where", "successors", "--depth", "10", "--behaviours", "50",
                 "--engine", "spark"])
    err = capsys.readouterr().err
    assert code == 4 and "Traceback" not in err
    assert "the model's successors() raised RuntimeError: planted fault in successors at height 3" in err
    assert "(behaviour 0 of the swarm, on an executor)" in err and "State being expanded: (3,)" in err
