"""Rebuilding a run's visited set, parent records and frontier from its checkpoint folder."""

from __future__ import annotations

import pickle
from typing import Any

from explorer.spark.checkpoint import Checkpoint
from explorer.spark.level import PARENTS, VISITED, partition_of
from explorer.spark.store import Store, driver_blocks


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
        store.size += len(data["parents"])
    if on_driver:
        store.seen = set()
        for data in driver_levels.values():
            store.seen.update(data["parents"])
    else:
        _restore_on_executors(store, checkpoint, driver_levels, spark_levels)
    if last in driver_levels:
        return driver_levels[last]["frontier"]
    if last == 0:
        return []
    frontier = store.sc.pickleFile(checkpoint.spark_level_uri(last, "frontier"))
    if levels[-1]["new"] <= threshold:
        try:
            return frontier.collect()
        except Exception as exc:
            raise checkpoint.corrupt(last, exc) from None
    return frontier


def _restore_on_executors(store: Store, checkpoint: Checkpoint, driver_levels: dict[int, dict],
                          spark_levels: list[int]) -> None:
    sc, p = store.sc, store.partitions
    store.seen = None
    blocks = dict(driver_blocks({lv: d["parents"] for lv, d in driver_levels.items()}, p))
    if spark_levels:
        uris = ",".join(checkpoint.spark_level_uri(level, "parents") for level in spark_levels)
        parents = sc.pickleFile(uris).partitionBy(p, partition_of)
        try:
            counts = parents.map(_record_level).countByValue()
        except Exception as exc:
            raise checkpoint.corrupt(spark_levels[-1], exc) from None
        for level in spark_levels:
            if counts.get(level, 0) != p:
                raise checkpoint.corrupt(level, ValueError(f"{counts.get(level, 0)} of {p} partitions of parents"))
            store.parents[level] = None
        visited = parents.mapPartitionsWithIndex(_visited_block(blocks), preservesPartitioning=True)
    else:
        visited = sc.parallelize(list(blocks.items()), p).partitionBy(p, partition_of)
    store.visited = visited
    store.size = sum(len(d["parents"]) for d in driver_levels.values())


def _record_level(record: tuple) -> int:
    return record[1][1]


def _visited_block(driver: dict[int, tuple]):
    def run(index: int, items: Any) -> Any:
        _, fp_blobs, parent_blobs = driver[index]
        fp_blobs, parent_blobs = list(fp_blobs), list(parent_blobs)
        for _, value in sorted(items, key=lambda r: r[1][1]):
            if value[0] == PARENTS:
                fp_blobs.append(pickle.dumps(list(pickle.loads(value[2])), protocol=5))
                parent_blobs.append((value[1], value[2]))
        yield index, (VISITED, fp_blobs, parent_blobs)

    return run
