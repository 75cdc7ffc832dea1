"""Parity of the Spark engine with the local engine on the KRaft generations: a complete KIP-966
run (counts, depth, sometimes witnesses, the vacuous ELR witness of a two-broker cluster) and
Kafka 3.5's K11 (the same shortest trace length)."""

from __future__ import annotations

import pytest
from isrcheck.explorer.registry import build_model

from tests.explorer.search.spark.helpers import compare
from tests.fixtures.classic import classic

pytestmark = pytest.mark.spark

ANCHOR = {"replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2, "max_fencings": 1,
          "max_crashes": 1, "stops": "lossy"}


def test_kip966_complete_run_matches_local(spark):
    # Two brokers, min ISR 1, one value, one fencing: 201 states over 12 levels, most on executors.
    model = build_model("classic", {"generation": "kraft-kip966", "replicas": 2, "min_insync_replicas": 1,
                                    "max_records": 1, "max_fencings": 1})
    local, spark_result = compare(model, stop_at_first=False, driver_threshold=20, partitions=2)
    assert spark_result.complete and spark_result.stats["levels_on_spark"] > 0
    assert (local.distinct_states, local.depth) == (201, 12)


def test_k11_shortest_trace_matches_local(spark):
    model = classic(generation="kraft-3.5", **ANCHOR)
    local, spark_result = compare(model, properties=["LeaderCompleteness"], driver_threshold=500, partitions=2)
    assert len(spark_result.violations[0].trace) == len(local.violations[0].trace) == 8
