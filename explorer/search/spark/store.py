"""The visited set and the parent records of a run: in the driver while small, on executors after.

While the run has stored fewer than ``driver_threshold`` states, the visited set is a set in the
driver and each level's parent records a dict there: a Spark job costs a fraction of a second and
a level of a few thousand states does not pay for it. Past the threshold the visited set moves to
executors for good, as one block per partition of a fixed partitioning by fingerprint
(``level.partition_of``). Each level then

* expands its frontier (on executors, or in the driver when the frontier is small),
* shuffles the candidates by fingerprint into the same partitioning as the visited set, and
* unions the two co-partitioned RDDs (a ``PartitionerAwareUnionRDD``: partition i of the union is
  partition i of each, so the visited set is never reshuffled) and merges them per partition.

This is the co-partitioned "union + per-partition merge" (docs/spark.md has the measurements) instead of
``subtractByKey``/``join``, which PySpark runs as a Python ``groupByKey`` over everything. Each
level's output is persisted and local-checkpointed so lineage stays one level long. Parent
records stay on executors (one pickled dict per partition and level) and are looked up with
single-partition jobs when a trace is walked back.
"""

from __future__ import annotations

import pickle
from typing import Any

from isrcheck.explorer.search.spark.level import (
    EXPANDED,
    STATE,
    VISITED,
    ReportParam,
    dedup,
    dedup_partition,
    expand_partition,
    lookup_parents,
    new_report,
    partition_of,
)


class Store:
    def __init__(self, ctx: Any, partitions: int):
        self.ctx = ctx
        self.partitions = partitions
        self.seen: set[int] | None = set()  # the driver's visited set, None once on executors
        self.parents: dict[int, dict | None] = {}  # level -> {fp: (parent, action)} or None (on executors)
        self.sc: Any = None
        self.payload: Any = None
        # Once on executors: an RDD whose partition i holds the visited block of partition i
        # (the last level's output, which also holds that level's new states).
        self.visited: Any = None
        self.size = 0

    @property
    def on_driver(self) -> bool:
        return self.seen is not None

    # -- driver levels ------------------------------------------------------------------------

    def add_on_driver(self, level: int, cands: dict[int, tuple], always: frozenset[str],
                      sometimes: frozenset[str]) -> tuple[dict[int, tuple], dict[str, Any]]:
        best, rep = dedup(self.ctx, self.seen, cands.items(), always, sometimes)
        self.seen.update(best)
        self.parents[level] = {fp: v[:2] for fp, v in best.items()}
        self.size += len(best)
        return best, rep

    def move_to_executors(self, sc: Any, payload: Any) -> None:
        """Hand the driver's visited set to executors, one block per partition. The parent
        records of the driver's levels stay in the driver (they are few)."""
        self.attach(sc, payload)
        tables = {lv: t for lv, t in self.parents.items() if t is not None}
        self.visited = sc.parallelize(driver_blocks(tables, self.partitions), self.partitions).partitionBy(
            self.partitions, partition_of)
        self.seen = None

    def attach(self, sc: Any, payload: Any) -> None:
        self.sc, self.payload = sc, payload

    # -- distributed levels -------------------------------------------------------------------

    def level_from_rdd(self, level: int, frontier: Any, transition: frozenset[str], always: frozenset[str],
                       sometimes: frozenset[str], save_dir: str | None = None) -> dict[str, Any]:
        """Expand an RDD frontier on executors, shuffle by fingerprint, merge with the visited set."""
        cands = frontier.mapPartitions(expand_partition(self.payload, transition)).partitionBy(
            self.partitions, partition_of)
        merged = co_union(self.sc, self.visited, cands)
        reports = self.sc.accumulator(new_report(), ReportParam())
        out = merged.mapPartitionsWithIndex(
            dedup_partition(self.payload, level, always, sometimes, reports, save_dir=save_dir),
            preservesPartitioning=True)
        return self._materialize(level, out, reports)

    def level_from_driver(self, level: int, cands: dict[int, tuple], report: dict[str, Any],
                          always: frozenset[str], sometimes: frozenset[str], save_dir: str | None = None
                          ) -> dict[str, Any]:
        """Merge candidates computed in the driver (a small frontier) with the visited set: a
        broadcast instead of a shuffle, one narrow job."""
        p = self.partitions
        grouped: dict[int, list] = {}
        for fp, value in cands.items():
            grouped.setdefault(fp % p, []).append((fp, value))
        grouped.setdefault(0, []).append((0, (EXPANDED, report)))
        extra = self.sc.broadcast(grouped)
        reports = self.sc.accumulator(new_report(), ReportParam())
        out = self.visited.mapPartitionsWithIndex(
            dedup_partition(self.payload, level, always, sometimes, reports, extra, save_dir),
            preservesPartitioning=True)
        try:
            return self._materialize(level, out, reports)
        finally:
            extra.unpersist()

    def _materialize(self, level: int, out: Any, reports: Any) -> dict[str, Any]:
        from pyspark import StorageLevel

        out.persist(StorageLevel.MEMORY_AND_DISK)
        out.localCheckpoint()
        # A JVM-side count: computing (and caching) the level is the only Python pass.
        out._jrdd.count()
        previous, self.visited = self.visited, out
        if previous is not None and previous.is_cached:
            previous.unpersist()
        self.parents[level] = None
        rep = reports.value
        self.size += rep["new"]
        return rep

    def frontier_rdd(self) -> Any:
        return self.visited.filter(_is_state).map(_state_pair)

    def frontier_list(self) -> list[tuple[int, Any]]:
        return self.frontier_rdd().collect()

    # -- walking back ---------------------------------------------------------------------------

    def parents_at(self, level: int, keys: set[int]) -> dict[int, tuple]:
        table = self.parents[level]
        if table is not None:
            return {k: table[k] for k in keys}
        wanted = sorted({k % self.partitions for k in keys})
        found = self.sc.runJob(self.visited, lookup_parents(level, frozenset(keys)), wanted)
        return dict(found)

    def paths(self, targets: dict[Any, tuple[int, int]]) -> dict[Any, list[int]]:
        """Fingerprints from an initial state to each target (level, fingerprint), walking back
        all targets together, one lookup per level."""
        paths = {name: [fp] for name, (_, fp) in targets.items()}
        at = dict(targets)
        for level in range(max((lv for lv, _ in at.values()), default=0), 1, -1):
            here = {name: fp for name, (lv, fp) in at.items() if lv == level}
            if not here:
                continue
            found = self.parents_at(level, set(here.values()))
            for name, fp in here.items():
                parent = found[fp][0]
                paths[name].append(parent)
                at[name] = (level - 1, parent)
        return {name: path[::-1] for name, path in paths.items()}

    def release(self) -> None:
        if self.visited is not None and self.visited.is_cached:
            self.visited.unpersist()


def driver_blocks(tables: dict[int, dict[int, tuple]], partitions: int) -> list[tuple[int, tuple]]:
    """Visited blocks, one per partition, of parent tables held in the driver."""
    fp_blobs: list[list[bytes]] = [[] for _ in range(partitions)]
    parent_blobs: list[list[tuple[int, bytes]]] = [[] for _ in range(partitions)]
    for level in sorted(tables):
        split: list[dict[int, tuple]] = [{} for _ in range(partitions)]
        for fp, parent in tables[level].items():
            split[fp % partitions][fp] = parent
        for i in range(partitions):
            fp_blobs[i].append(pickle.dumps(list(split[i]), protocol=5))
            parent_blobs[i].append((level, pickle.dumps(split[i], protocol=5)))
    return [(i, (VISITED, fp_blobs[i], parent_blobs[i])) for i in range(partitions)]


def co_union(sc: Any, visited: Any, cands: Any) -> Any:
    """The union of two RDDs with the same partitioner, partition by partition.

    ``RDD.union`` would add a Python pass to re-serialize one side when the two were written by
    different serializers; both sides hold batches of pickled lists, which the context's default
    serializer reads, so the JVM RDDs are united directly. With equal (JVM) partitioners Spark
    builds a ``PartitionerAwareUnionRDD``: partition i is partition i of each side, no shuffle.
    """
    from pyspark import RDD

    if visited.partitioner != cands.partitioner:
        raise AssertionError("the visited set and the candidates must be co-partitioned")
    merged = RDD(visited._jrdd.union(cands._jrdd), sc, sc.serializer)
    merged.partitioner = visited.partitioner
    return merged


def _is_state(record: tuple) -> bool:
    return record[1][0] == STATE


def _state_pair(record: tuple) -> tuple[int, Any]:
    return record[0], record[1][1]
