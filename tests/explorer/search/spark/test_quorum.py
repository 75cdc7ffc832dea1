"""Parity of the Spark engine with the local engine on the metadata quorum (``isrcheck.model.quorum``),
whose packed states (marshal bytes) travel and are stored as Spark's fast path keeps them."""

from __future__ import annotations

import pytest
from isrcheck.explorer.registry import build_model

from tests.explorer.search.spark.helpers import compare

pytestmark = pytest.mark.spark


def test_quorum_complete_run_matches_local(spark):
    # Two voters, one value, one election: a small complete run, most levels on executors.
    model = build_model("quorum", {"voters": 2, "values": 1, "max_elections": 1})
    local, spark_result = compare(model, stop_at_first=False, driver_threshold=10, partitions=2)
    assert spark_result.complete and spark_result.stats["levels_on_spark"] > 0
    assert local.distinct_states == spark_result.distinct_states == 55


def test_quorum_restart_trace_matches_local(spark):
    model = build_model("quorum", {"max_crashes": 1})
    local, spark_result = compare(model, properties=["NoIllegalState"], driver_threshold=50, partitions=2)
    assert len(spark_result.violations[0].trace) == len(local.violations[0].trace) == 7


def test_quorum_reconfiguration_trace_matches_local(spark):
    # KIP-853 (--max-reconfigs): voter-set entries (negative values) in logs and fetch responses travel
    # packed; Q-reconfig-two-at-once's 9-state trace, its last levels (over 2,500 states) on executors.
    model = build_model("quorum", {"max_reconfigs": 1, "reconfig_rule": "two-at-once"})
    local, spark_result = compare(model, properties=["LeaderHasAllAckedValues"], driver_threshold=2500, partitions=2)
    assert len(spark_result.violations[0].trace) == len(local.violations[0].trace) == 9
    assert spark_result.stats["levels_on_spark"] > 0
