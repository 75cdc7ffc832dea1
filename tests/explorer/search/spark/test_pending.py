"""The previous level's parent records are computed and stored by the next level's job without
going through its merge (``store.computed_only``): the merge never sees them, and they are there
for traces afterwards (docs/spark.md, "Issue 24, ninth round")."""

from __future__ import annotations

from isrcheck.explorer.search.spark.level import partition_of
from isrcheck.explorer.search.spark.lost import storage_level
from isrcheck.explorer.search.spark.store import co_union, computed_only


def _cached_partitions(sc, rdd) -> int:
    for info in sc._jsc.sc().getRDDStorageInfo():
        if info.id() == rdd.id():
            return int(info.numCachedPartitions())
    return 0


def test_a_computed_only_side_stores_its_blocks_and_yields_nothing(spark):
    sc = spark.sparkContext
    base = sc.parallelize([(i, ("X", i)) for i in range(40)], 2).partitionBy(2, partition_of)
    pending = base.mapPartitions(lambda items: ((k, ("P", v[1] * 10)) for k, v in items), preservesPartitioning=True)
    pending.persist(storage_level(sc, 1))
    others = sc.parallelize([(i, ("C", i)) for i in range(6)], 2).partitionBy(2, partition_of)
    union = co_union(sc, others, computed_only(sc, pending))
    assert union.getNumPartitions() == 2  # co-partitioned: no shuffle
    seen = union.mapPartitionsWithIndex(lambda i, items: [(i, v[0]) for _, v in items]).collect()
    assert sorted(tag for _, tag in seen) == ["C"] * 6  # none of the pending side's records reached the merge
    assert _cached_partitions(sc, pending) == 2  # but both of its blocks were computed and stored
    assert sorted(v[1] for _, v in pending.collect()) == [i * 10 for i in range(40)]
    pending.unpersist()
