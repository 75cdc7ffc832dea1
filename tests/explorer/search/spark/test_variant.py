"""A user's variant on Spark executors (``--engine spark``): the variant's file is shipped as a user
module, its rule registered there when it loads, and the executors' successors are the local ones."""

from __future__ import annotations

import pytest
from isrcheck.explorer.registry import build_model

from tests.explorer.search.spark.helpers import compare
from tests.fixtures.paths import ROOT

pytestmark = pytest.mark.spark


def test_a_variant_is_expanded_on_executors_as_locally(spark):
    model = build_model(str(ROOT / "docs" / "examples" / "lag_one_isr.py"), {})
    local, spark_result = compare(model, properties=["StrongIsr"], stop_at_first=False, driver_threshold=0,
                                  partitions=2)
    assert spark_result.stats["levels_on_spark"] > 0  # expanded on executors, not in the driver
    assert spark_result.distinct_states == local.distinct_states > 600
    assert [len(v.trace) for v in spark_result.violations] == [8] == [len(v.trace) for v in local.violations]


def test_a_kraft_variant_is_expanded_on_executors_as_locally(spark):
    """A KRaft variant's form (docs/examples/kraft_epoch_survives.py) is registered on the executors
    when its file loads there; the variant generation travels in the pickled configuration."""
    model = build_model(str(ROOT / "docs" / "examples" / "kraft_epoch_survives.py"), {})
    local, spark_result = compare(model, properties=["LeaderCandidateCompleteness"], driver_threshold=0, partitions=2)
    assert spark_result.stats["levels_on_spark"] > 0
    assert [len(v.trace) for v in spark_result.violations] == [8] == [len(v.trace) for v in local.violations]
