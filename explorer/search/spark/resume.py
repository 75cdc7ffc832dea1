"""Rebuilding a run's visited set, parent records and frontier from its checkpoint folder."""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.search.spark.checkpoint import Checkpoint
from isrcheck.explorer.search.spark.level import partition_of
from isrcheck.explorer.search.spark.store import Store, driver_fps
from isrcheck.explorer.search.spark.tasks import read_blocks, read_frontier_part, state_pairs


def restore_store(store: Store, checkpoint: Checkpoint, levels: list[dict[str, Any]], *, on_driver: bool,
                  threshold: int) -> Any:
    """Fill ``store`` with levels 1..len(levels) and return the last level's frontier (a list of
    (fp, state) in the driver, or an RDD of them)."""
    last = len(levels)
    driver_levels = {lv["level"]: checkpoint.read_driver_level(lv["level"]) for lv in levels
                     if lv["where"] == "driver"}
    spark_levels = [lv["level"] for lv in levels if lv["where"] != "driver"]
    for level, data in driver_levels.items():
        store.parents[level] = data["parents"]
    if on_driver:
        store.seen = set()
        for data in driver_levels.values():
            store.seen.update(data["parents"])
    else:
        _restore_on_executors(store, checkpoint, driver_levels, spark_levels)
    store.size = sum(lv["new"] for lv in levels)  # every level's, on executors too
    if last in driver_levels:
        return driver_levels[last]["frontier"]
    if last == 0:
        return []
    sc, p = store.sc, store.partitions
    directory = checkpoint.spark_level_dir(last, p, frontier=True)
    frontier = sc.parallelize(range(p), p).mapPartitionsWithIndex(read_frontier_part(directory))
    if levels[-1]["new"] <= threshold:
        try:
            return frontier.mapPartitions(state_pairs).collect()
        except Exception as exc:
            raise checkpoint.corrupt(last, exc) from None
    return frontier


def _restore_on_executors(store: Store, checkpoint: Checkpoint, driver_levels: dict[int, dict],
                          spark_levels: list[int]) -> None:
    from pyspark import StorageLevel

    sc, p = store.sc, store.partitions
    store.seen = None
    blocks = driver_fps([d["parents"] for d in driver_levels.values()], p)
    dirs = {level: checkpoint.spark_level_dir(level, p, frontier=False) for level in spark_levels}
    visited = sc.parallelize(range(p), p).mapPartitionsWithIndex(read_blocks(dirs, blocks)).partitionBy(
        p, partition_of)
    visited.persist(StorageLevel.DISK_ONLY)  # as every level (store._materialize)
    try:
        visited._jrdd.count()
    except Exception as exc:
        raise checkpoint.corrupt(None, exc) from None
    for level in spark_levels:
        store.parents[level] = None
        store.parent_dirs[level] = dirs[level]
    store.set_base(visited, max([*spark_levels, *driver_levels]))
