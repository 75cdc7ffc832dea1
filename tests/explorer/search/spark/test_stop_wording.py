"""Issue 29: a run that stops at its first violation says so in the same words on both engines,
and the Spark engine says why its counts are larger (it finishes the violating level)."""

from __future__ import annotations

import pytest
from isrcheck.explorer.check import check
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.traces.text import render_summary

from tests.fixtures.paths import ROOT

pytestmark = pytest.mark.spark

RACY = str(ROOT / "tests" / "fixtures" / "racy_lock.py")


def test_spark_and_local_stop_at_the_first_violation_in_the_same_words(spark):
    model = build_model(RACY)
    local = check(model, workers=1)
    distributed = check(model, engine="spark", master=spark.sparkContext.master, driver_threshold=0, partitions=2)
    first_line = "Model checking stopped at the first violation (--continue explores on): 1 violation(s)."
    assert render_summary(local).splitlines()[0] == first_line
    assert render_summary(distributed).splitlines()[0] == first_line
    assert "incomplete" not in render_summary(distributed)
    assert "stops at the end of the level (depth) of its first violation" in render_summary(distributed)
    assert "stops at the end of the level" not in render_summary(local)
    assert distributed.distinct_states >= local.distinct_states
