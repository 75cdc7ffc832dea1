"""Parity of the Spark engine with the local engine on the Kafka replication model, every protocol
generation at replicas=2, log_size=2, max_records=2, max_leader_epoch=2 (about 6-10 thousand states,
18-20 levels each)."""

from __future__ import annotations

import pytest

from tests.explorer.search.spark.helpers import compare
from tests.fixtures.classic import GENERATIONS, classic

pytestmark = pytest.mark.spark

# Two generations (one with violations, one without) in the default run; the rest are slow.
QUICK = {"truncate-to-hw", "kip320"}


@pytest.mark.parametrize("generation", [
    pytest.param(g, marks=() if g in QUICK else pytest.mark.slow) for g in GENERATIONS])
def test_replication_model_matches_local(spark, generation):
    model = classic(generation=generation, replicas=2, log_size=2, max_records=2, max_leader_epoch=2)
    local, spark_result = compare(model, stop_at_first=False, driver_threshold=1000, partitions=2)
    assert spark_result.stats["levels_on_spark"] > 0
    assert spark_result.complete
