"""A level's output split by kind in the JVM (``store.view``): each view holds exactly the records
of its kind, partition by partition, and keeps the partitioner, so the co-partitioned union of the
next level stays a union without a shuffle."""

from __future__ import annotations

from isrcheck.explorer.search.spark.level import PARENTS, RUN, STATE, VISITED, partition_of
from isrcheck.explorer.search.spark.store import co_union, level_output, view

KINDS = (VISITED, PARENTS, STATE, RUN)


def test_each_view_holds_its_kind_exactly(spark) -> None:
    sc = spark.sparkContext
    base = sc.parallelize([(i, None) for i in range(3)], 3).partitionBy(3, partition_of)

    def emit(index, items):
        list(items)
        for n in range(4):
            for kind in KINDS[: 1 + (index + n) % 4]:  # uneven counts of each kind per partition
                yield index, (kind, n, bytes([index, n]) * 1000)

    out = level_output(base, emit)
    out.persist()
    want = [[(i, v) for i, v in emit(p, iter(()))] for p in range(3)]
    views = [view(out, kind) for kind in KINDS]
    assert all(v.partitioner == base.partitioner for v in views)
    # one job: partition i of the union is partition i of each view in turn (no shuffle, and no
    # concatenation of partitions, which a lost partitioner would give)
    union = co_union(sc, *views)
    assert union.getNumPartitions() == 3
    assert union.glom().collect() == [[r for kind in KINDS for r in part if r[1][0] == kind] for part in want]
    out.unpersist()
