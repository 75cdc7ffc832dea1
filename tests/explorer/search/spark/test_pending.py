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


def test_a_levels_state_block_takes_its_fingerprints_from_the_parents_record_before_it():
    from isrcheck.explorer.search.spark.blocks import encode_states
    from isrcheck.explorer.search.spark.level import PARENTS, STATE, VISITED
    from isrcheck.explorer.search.spark.tasks import state_fps, state_pairs

    fps = bytes(range(16)) + bytes(range(16, 32))
    states = encode_states([7, 9])
    output = [(0, (VISITED, 0, b"")), (0, (PARENTS, 5, (fps, bytes(32), bytes(8)))), (0, (STATE, None, states))]
    assert list(state_pairs(iter(output))) == [(fps[:16], 7), (fps[16:], 9)]
    # a driver frontier's or a checkpoint's STATE block carries its own
    read = state_fps()
    assert read((STATE, fps[16:], encode_states([9]))) == fps[16:]
    assert read((PARENTS, 5, (fps, bytes(32), bytes(8)))) is None


def test_a_state_block_without_its_parents_record_just_before_it_is_refused():
    # never the fingerprints of another block: with equal counts the states would get other keys
    import pytest
    from isrcheck.explorer.search.spark.blocks import encode_states
    from isrcheck.explorer.search.spark.level import PARENTS, RUN, STATE
    from isrcheck.explorer.search.spark.tasks import state_fps

    fps = bytes(range(16))
    parents = (PARENTS, 5, (fps, bytes(16), bytes(4)))
    for records in ([(STATE, None, encode_states([7]))],
                    [parents, (STATE, None, encode_states([7])), (STATE, None, encode_states([8]))],
                    [parents, (RUN, fps), (STATE, None, encode_states([7]))]):
        read = state_fps()
        with pytest.raises(ValueError, match="PARENTS record just before it"):
            for record in records:
                read(record)
