"""The Spark engine reports what the local engine reports: same counts, depth, verdicts and vacuous
properties on complete runs, shortest traces of the same length on violations, on local[2]."""

from __future__ import annotations

import importlib
import os
import sys

import pytest
from isrcheck.explorer.search.fingerprint import collision_probability, fingerprint
from isrcheck.explorer.search.spark.level import fp128

from isrcheck import check
from tests.explorer.search.spark.helpers import FloatAfterTwoSteps, compare, summary
from tests.fixtures.models import Bits, Chain, Counters, TwoStarts

pytestmark = pytest.mark.spark

CASES = {
    "counters-2x3": (lambda: Counters(2, 3), {}),
    "counters-3x4-clean": (lambda: Counters(3, 4), {}),
    "counters-4x3-bug-continue": (lambda: Counters(4, 3, bug_at=4), {"stop_at_first": False}),
    "counters-3x4-bug-stop": (lambda: Counters(3, 4, bug_at=5), {}),
    "counters-3x3-symmetry": (lambda: Counters(3, 3), {"symmetry": True}),
    "counters-3x4-max-depth": (lambda: Counters(3, 4), {"max_depth": 4}),
    "bits-4-transition-vacuous": (lambda: Bits(4), {"stop_at_first": False}),
    "bits-5-symmetry": (lambda: Bits(5), {"symmetry": True, "stop_at_first": False}),
    "bits-3-stop": (lambda: Bits(3), {}),
    "chain-deadlock": (lambda: Chain(5), {"check_deadlock": True}),
    "chain-no-deadlock-check": (lambda: Chain(5), {}),
    "two-starts": (lambda: TwoStarts(), {"stop_at_first": False}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_level_on_executors_matches_local(spark, case):
    make, options = CASES[case]
    compare(make(), driver_threshold=0, partitions=3, **options)


@pytest.mark.parametrize("case", ["counters-4x3-bug-continue", "bits-4-transition-vacuous", "two-starts"])
def test_driver_levels_match_local(spark, case):
    make, options = CASES[case]
    _, result = compare(make(), **options)
    assert result.stats["levels_on_spark"] == 0  # a run this small never leaves the driver


def test_run_crossing_the_driver_threshold_matches_local(spark):
    # 7**4 = 2401 states: the first levels run in the driver, the rest on executors, with small
    # frontiers expanded in the driver and merged by a broadcast.
    _, result = compare(Counters(4, 7, bug_at=20), stop_at_first=False, driver_threshold=100, partitions=3)
    levels = result.stats["level_stats"]
    assert {lv["where"] for lv in levels} == {"driver", "spark", "driver+spark"}
    assert result.distinct_states == 7**4


def test_counts_are_the_hand_derived_ones(spark):
    n, limit = 3, 5
    result = check(Counters(n, limit), engine="spark", driver_threshold=0, partitions=4)
    assert result.complete and result.ok and not result.vacuous  # AllAtLimit is reached
    assert result.distinct_states == limit**n
    assert result.generated_states == 1 + n * (limit - 1) * limit ** (n - 1)
    assert result.depth == n * (limit - 1) + 1


def test_same_traces_for_any_partition_count(spark):
    model = Counters(4, 3, bug_at=5)
    runs = [check(model, engine="spark", driver_threshold=0, partitions=p, stop_at_first=False) for p in (1, 2, 5)]
    runs.append(check(model, engine="spark", stop_at_first=False))  # all in the driver
    first = runs[0]
    for other in runs[1:]:
        assert summary(other) == summary(first)
        assert [v.trace for v in other.violations] == [v.trace for v in first.violations]
        assert other.examples == first.examples


def test_chosen_violation_is_the_smallest_fingerprint(spark):
    # Several states at depth 6 sum to 5; the reported one is the smallest fingerprint among them.
    model = Counters(3, 4, bug_at=5)
    result = check(model, engine="spark", driver_threshold=0, partitions=3)
    (violation,) = result.violations
    candidates = [s for s in _all_states(3, 4) if sum(s) == 5]
    assert violation.trace.last == min(candidates, key=fp128)


def test_stop_at_first_finishes_the_level_and_says_so(spark):
    model = Counters(3, 4, bug_at=3)
    local = check(model)
    result = check(model, engine="spark", driver_threshold=0, partitions=2)
    assert not result.complete and not result.vacuous
    assert [len(v.trace) for v in result.violations] == [len(v.trace) for v in local.violations] == [4]
    # the whole of level 4 (sum 3) was stored: 10 vectors of 3 counters summing to 3, plus levels 1-3
    assert result.distinct_states == 1 + 3 + 6 + 10
    assert result.depth == 4


def test_fingerprint_is_the_explorer_128_bit_one():
    for state in [(0, 1, 2), frozenset({1, 2}), 7, ("a", frozenset({(1, 2)}))]:
        assert fp128(state) == fingerprint(state, bits=128)


def test_collision_probability_uses_128_bits(spark):
    result = check(Counters(3, 4), engine="spark", driver_threshold=0, partitions=2)
    assert result.collision_probability == collision_probability(64, 145, bits=128)
    assert 0 < result.collision_probability < 1e-30


def test_unknown_engine_option_is_refused(spark):
    from isrcheck import UserError
    with pytest.raises(UserError, match="unknown spark engine option"):
        check(Counters(), engine="spark", master_url="local[2]")


def test_symmetry_without_canonical_is_refused(spark):
    from isrcheck import UserError
    with pytest.raises(UserError, match="canonical"):
        check(Chain(3), engine="spark", symmetry=True)


def _all_states(n, limit):
    from tests.fixtures.models import all_vectors

    return all_vectors(n, limit)


def test_contract_error_on_an_executor_reaches_the_user(spark):
    from isrcheck.explorer.search.spark import resident
    from pyspark import SparkFiles

    from isrcheck import ContractError

    root = os.path.join(SparkFiles.getRootDirectory(), resident.FOLDER)
    before = set(os.listdir(root)) if os.path.isdir(root) else set()  # other runs of this session's
    with pytest.raises(ContractError, match="float"):
        check(FloatAfterTwoSteps(), engine="spark", driver_threshold=0, partitions=2)
    after = set(os.listdir(root)) if os.path.isdir(root) else set()
    assert after <= before  # a run that ends in an error drops its kept files' folder too


# A model in a module the driver imports and executors cannot: a folder on the driver's sys.path only
# (as a package installed on the driver alone). Not this test module: tests/ is a package, and the
# repository is on the executors' PYTHONPATH (conftest.py), so they import it.
ONLY_ON_THE_DRIVER = """
class OnlyOnTheDriver:
    def init_states(self):
        return [0]

    def successors(self, state):
        if state < 3:
            yield "inc", state + 1

    def properties(self):
        from isrcheck import Property
        return [Property.always("Small", lambda s: s < 10)]  # a run must check something
"""


def test_model_module_missing_on_executors_is_a_user_error(spark, tmp_path, monkeypatch):
    from isrcheck import UserError
    (tmp_path / "isrcheck_test_only_on_the_driver.py").write_text(ONLY_ON_THE_DRIVER)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("isrcheck_test_only_on_the_driver")
    try:
        with pytest.raises(UserError, match="executors cannot import"):
            check(module.OnlyOnTheDriver(), engine="spark", driver_threshold=0, partitions=2)
    finally:
        del sys.modules[module.__name__]
