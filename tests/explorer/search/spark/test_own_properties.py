"""A properties file on Spark executors (``--properties FILE --engine spark``): the file is shipped
as a user module and its properties are evaluated there, with the local engine's verdicts."""

from __future__ import annotations

import pytest
from isrcheck.explorer.extra import with_properties_file
from isrcheck.explorer.registry import build_model

from tests.explorer.search.spark.helpers import compare
from tests.fixtures.paths import ROOT

pytestmark = pytest.mark.spark


def test_a_properties_file_is_checked_on_executors_as_locally(spark):
    model = with_properties_file(build_model("classic", {"consumer_reads": "leader"}),
                                 ROOT / "docs" / "examples" / "consumer_read.py")
    names = ["ConsumerReadsBelowServerHw", "ConsumerReadsBelowLeaderHw"]
    local, spark_result = compare(model, properties=names, stop_at_first=False, driver_threshold=0, partitions=2)
    assert spark_result.stats["levels_on_spark"] > 0  # evaluated on executors, not in the driver
    assert [(v.property, len(v.trace)) for v in spark_result.violations] == [("ConsumerReadsBelowLeaderHw", 9)]
    assert spark_result.distinct_states == local.distinct_states
