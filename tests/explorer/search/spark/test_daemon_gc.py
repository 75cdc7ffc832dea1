"""Workers forked from the engine's Python daemon (``spark.daemon``) inherit its imports frozen out
of the cyclic garbage collector, which PySpark's daemon runs after every task of a reused worker
(docs/spark.md, "Issue 24, ninth round"). The Spark tests' sessions run every task through the
engine's daemon (conftest)."""

from __future__ import annotations


def _frozen(_):
    import gc

    return gc.get_freeze_count()


def test_a_worker_finds_the_daemons_imports_frozen(spark):
    counts = spark.sparkContext.parallelize(range(2), 2).map(_frozen).collect()
    # the daemon's imports (pyspark's worker, the engine's task modules, the model): many thousands
    assert min(counts) > 10_000, counts
