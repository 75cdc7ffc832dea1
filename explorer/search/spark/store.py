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
level's output is persisted and local-checkpointed so lineage stays one level long. Every record
is a block of a partition's states (``tasks`` lists them): the visited set is one sorted array of
16-byte fingerprints per partition, merged with each level's new ones (rebuilt only when a kept
file is missing, below). Parent records
stay on executors (one block per partition and level, 36 bytes a state, in an RDD of
their own per level, on disk, which no later level reads) and are looked up with
single-partition jobs when a trace is walked back. Level blocks are persisted on disk, not in the
JVM's heap, which in local mode is the driver's.

On one machine the full levels keep the visited array as files instead (``resident``): a level
whose merge mapped the last one writes its new array there and not into its output, so Spark's
copy of the set is the last array a level's output holds (``base``) and the parent records of the
levels since, from which a missing file's array is rebuilt (``_visited_source``).
"""

from __future__ import annotations

import os
import uuid
from typing import Any

from isrcheck.explorer.search.spark import candfiles, resident
from isrcheck.explorer.search.spark.blocks import decode_states, encode_states, lookup, read_parents
from isrcheck.explorer.search.spark.level import STATE, ReportParam, merge_reports, partition_of, total
from isrcheck.explorer.search.spark.lost import storage_level
from isrcheck.explorer.search.spark.steps import block, dedup, part_of, split
from isrcheck.explorer.search.spark.tasks import (
    expand_partition,
    lookup_parents,
    merge_partition,
    only_parents,
    part_name,
    rebuild_visited,
    split_fps,
    state_pairs,
    visited_records,
)


class Store:
    def __init__(self, ctx: Any, partitions: int):
        self.ctx = ctx
        self.partitions = partitions
        self.seen: set[bytes] | None = set()  # the driver's visited set, None once on executors
        # level -> {fp: (parent, action)} in the driver, or None (on executors)
        self.parents: dict[int, dict | None] = {}
        self.sc: Any = None
        self.payload: Any = None
        # Once on executors: an RDD whose partition i holds partition i's visited set, and the
        # last level's parent records and new states (the last level's output).
        self.visited: Any = None
        # level -> an RDD of that level's parent records (on disk); the last one is computed by
        # the next level's job, which reads it as a third side of its union
        self.parent_rdds: dict[int, Any] = {}
        self.parent_dirs: dict[int, str] = {}  # level -> checkpoint folder (levels resumed from it)
        # the outputs of the small levels since ``visited`` (``tasks``: RUN), read with it
        self.deltas: list[Any] = []
        self.run_size = 0  # states in those runs
        self.pending: Any = None
        self.size = 0
        self.replicas: int | None = None  # copies of each kept block; None: 2 with two executors or more
        # The folder of this run's kept visited arrays (``resident``; None where executors may not
        # share the driver's disk), and the level whose output ``visited`` is when its array was
        # kept there too (else None: the small levels read ``visited`` through Spark).
        self.kept_folder: str | None = None
        self.kept_level: int | None = None
        self.mapped = self.again = 0  # small levels that mapped kept arrays; levels run again
        # the last level, when it was a full one whose every partition kept its new states as a file
        # (``resident.keep_states``), else None; and the levels whose expansion read such files
        self.states_level: int | None = None
        self.expanded_from_files = 0
        # the levels whose candidates went from the expansion to the merge through files in the kept
        # folder (``candfiles``; a pickled block stays in Spark)
        self.cands_in_files = 0
        # An RDD holding the visited set of level ``base_level`` as VISITED records (``visited`` itself
        # unless full levels read and write it as kept files), and the level of ``visited`` (the last
        # full level): a full level that merged a kept array writes its new array only to its kept
        # file, so Spark's copy of the visited set is ``base`` and the parent records of the levels
        # after it, from which a missing file's array is rebuilt (``_visited_source``).
        self.base: Any = None
        self.base_level = self.full_level = 0
        self.rebuilt = 0  # times the visited set was rebuilt from ``base`` and parent records

    @property
    def on_driver(self) -> bool:
        return self.seen is not None

    # -- driver levels ------------------------------------------------------------------------

    def add_on_driver(self, level: int, cands: dict[bytes, tuple], always: frozenset[str],
                      sometimes: frozenset[str]) -> tuple[dict[bytes, tuple], dict[str, Any]]:
        best, rep = dedup(self.ctx, self.seen, cands, always, sometimes)
        self.seen.update(best)
        self.parents[level] = {fp: v[:2] for fp, v in best.items()}
        self.size += len(best)
        return best, rep

    def move_to_executors(self, sc: Any, payload: Any) -> None:
        """Hand the driver's visited set to executors, one block per partition. The parent
        records of the driver's levels stay in the driver too (they are few)."""
        self.attach(sc, payload)
        tables = [t for t in self.parents.values() if t is not None]
        records = [rec for i, fps in driver_fps(tables, self.partitions).items() for rec in visited_records(i, fps)]
        self.visited = sc.parallelize(records, self.partitions).partitionBy(self.partitions, partition_of)
        self.seen = None
        self.set_base(self.visited, max(self.parents))

    def set_base(self, visited: Any, level: int) -> None:
        """``visited`` (an RDD of VISITED records: the driver's set moved out, or one rebuilt from a
        checkpoint) holds the whole visited set of ``level``, the last level stored."""
        self.visited = self.base = visited
        self.base_level = self.full_level = level

    def attach(self, sc: Any, payload: Any) -> None:
        self.sc, self.payload = sc, payload
        if self.kept_folder is None:
            self.kept_folder = resident.folder_for(sc, uuid.uuid4().hex)

    # -- distributed levels -------------------------------------------------------------------

    def level_from_rdd(self, level: int, frontier: Any, transition: frozenset[str], always: frozenset[str],
                       sometimes: frozenset[str], save_dir: str | None = None, send: int = 0,
                       frontier_size: int = 0) -> dict[str, Any]:
        """Expand an RDD frontier on executors, shuffle its blocks by partition, merge with the
        visited set. A level whose frontier is small against the visited set writes a run of its
        new fingerprints instead of the whole set, until the runs hold an eighth of it."""
        full = frontier_size * 16 > self.size or self.run_size * 8 > self.size
        # on one machine, a full level keeps its new array where the next levels map it (``resident``)
        keep = (self.kept_folder, level) if full and self.kept_folder else None
        # the frontier is the last full level's output and its tasks kept its new states as files: the
        # expansion reads those instead of streaming the whole output through Spark (``resident``)
        states = ((self.kept_folder, self.states_level)
                  if frontier is self.visited and self.states_level is not None else None)
        reports = self.sc.accumulator({}, ReportParam())
        pending = self._pending()

        def job(use: tuple[str, int] | None, files: bool, through: bool) -> Any:
            kept = states if files else None
            # on one machine the candidates go through files and the shuffle moves references (``candfiles``)
            to = (self.kept_folder, level) if through else None
            source = self.sc.parallelize(range(self.partitions), self.partitions) if kept else frontier
            cands = source.mapPartitionsWithIndex(
                expand_partition(self.payload, transition, self.partitions, reports, kept, to)
            ).partitionBy(self.partitions, partition_of)
            sides = [*self.deltas, cands, *pending] if use else [self._visited_source(), *self.deltas, cands, *pending]
            return co_union(self.sc, *sides).mapPartitionsWithIndex(
                merge_partition(self.payload, level, always, sometimes, reports, save_dir=save_dir, send=send,
                                full=full, keep=keep, use=use, keep_states=self.kept_folder,
                                cands_from=to[0] if to else None),
                preservesPartitioning=True)

        try:
            rep, out, mapped = self._compute(job, reports, files=states is not None,
                                             through=self.kept_folder is not None)
        finally:  # computed and local-checkpointed (or failed): no task reads this level's files again
            candfiles.drop_level(self.kept_folder, level)
        return self._commit(level, out, rep, full=full, mapped=mapped)

    def level_from_driver(self, level: int, cands: dict[bytes, tuple], report: dict[str, Any],
                          always: frozenset[str], sometimes: frozenset[str], save_dir: str | None = None,
                          send: int = 0) -> dict[str, Any]:
        """Merge candidates computed in the driver (a small frontier) with the visited set: a
        broadcast instead of a shuffle, one narrow job."""
        extra = self.sc.broadcast({j: [blk] for j, blk in split(self.ctx, cands, self.partitions).items()})
        reports = self.sc.accumulator({}, ReportParam())
        pending = self._pending()

        def job(use: tuple[str, int] | None, files: bool, through: bool) -> Any:
            # with a kept array, any co-partitioned side will do (the last output's records are skipped)
            sides = ([*self.deltas, *pending] or [self.visited]) if use else [self._visited_source(), *self.deltas,
                                                                              *pending]
            return co_union(self.sc, *sides).mapPartitionsWithIndex(
                merge_partition(self.payload, level, always, sometimes, reports, extra, save_dir, send, full=False,
                                use=use),
                preservesPartitioning=True)

        try:
            rep, out, _ = self._compute(job, reports)
        finally:
            extra.unpersist()
        return merge_reports([report, self._commit(level, out, rep, full=False, mapped=False)])

    def _pending(self) -> list[Any]:
        """The previous level's parent records, when this level's job is to compute them: as a side
        of the level's union that computes and stores them but hands none of them to the merge
        (``computed_only``), which has no use for them."""
        pending, self.pending = self.pending, None
        return [computed_only(self.sc, pending)] if pending is not None else []

    def _compute(self, job: Any, reports: Any, files: bool = False, through: bool = False
                 ) -> tuple[dict[str, Any], Any, bool]:
        """Run a level's job (``job(use, files, through)`` builds its output RDD) and return (its report,
        the RDD, whether its merge mapped the kept visited arrays). ``files``: the expansion may read the
        previous level's kept states files (``resident``); a partition that finds none reports
        ``missing`` too, and the level runs again from Spark's copy. ``through``: the candidates go
        through files (``candfiles``); a merge that finds one missing reports ``missing`` too, and the
        level runs again with them through the shuffle. When the last full level kept
        its visited array, the level first leaves the visited set out of its input and maps the
        kept files (``resident``); should any partition find none, that output is dropped and the
        level runs again with the visited set in its input, rebuilt from Spark's copy where a full
        level wrote it only to its kept files (``_visited_source``; the accumulator is keyed by
        task, so the second run's reports replace the first's, and a finished shuffle is not run again)."""
        use = (self.kept_folder, self.kept_level) if self.kept_level is not None else None
        out = self._materialize(job(use, files, through))
        rep = total(reports.value)
        self.mapped += use is not None
        self.expanded_from_files += files
        self.cands_in_files += through and rep["cand_files"] > 0
        if (use is not None or files or through) and rep["missing"]:
            self.again += 1
            out.unpersist()
            out = self._materialize(job(None, False, False))
            rep = total(reports.value)
            use = None
        return rep, out, use is not None

    def _visited_source(self) -> Any:
        """An RDD of VISITED records holding the visited set of the last full level: ``base`` where it
        is that level's, else one rebuilt from ``base`` and the parent records of the levels after
        it (the full levels since wrote their arrays only to kept files, one of which is missing),
        kept as the new ``base``."""
        if self.base_level == self.full_level:
            return self.base
        after = [self.parent_rdds[lv] for lv in sorted(self.parent_rdds) if self.base_level < lv <= self.full_level]
        rebuilt = co_union(self.sc, self.base, *after).mapPartitionsWithIndex(
            rebuild_visited(self.base_level, self.full_level), preservesPartitioning=True)
        self._materialize(rebuilt)
        old, self.base, self.base_level = self.base, rebuilt, self.full_level
        self.rebuilt += 1
        if old is not self.visited and old.is_cached:  # an older full level's output: its parents were copied
            old.unpersist()
        return rebuilt

    def _materialize(self, out: Any) -> Any:
        # On disk, not in the JVM's heap: in local mode that heap is the driver's (1 GB by default),
        # and the blocks of a 10^7-state run filled it (the page cache keeps recent levels in memory).
        # With two or more executors, each block has a copy on a second one: local-checkpointing
        # cuts the lineage, so a block lost with its executor could not be recomputed (``lost``).
        out.persist(storage_level(self.sc, self.replicas))
        out.localCheckpoint()
        # A JVM-side count: computing (and caching) the level is the only Python pass.
        out._jrdd.count()
        return out

    def _commit(self, level: int, out: Any, rep: dict[str, Any], full: bool, mapped: bool) -> dict[str, Any]:
        """The driver's bookkeeping of a computed level (``out``, its report ``rep``; ``mapped``: its
        merge read the kept visited arrays, so ``out`` holds no copy of the visited set)."""
        storage = storage_level(self.sc, self.replicas)
        self.parents[level] = None
        if full:
            previous, self.visited, self.deltas, self.run_size = self.visited, out, [], 0
            self.full_level = level
            self.kept_level = level if rep["kept_fps"] == self.partitions else None
            self.states_level = level if rep["kept_states"] == self.partitions else None
            if not mapped:  # ``out`` holds the visited set: the new base
                old, self.base, self.base_level = self.base, out, level
                if old is not None and old is not previous and old.is_cached:  # its parent records were copied
                    old.unpersist()
            if previous is not None and previous is not self.base and previous.is_cached:
                previous.unpersist()  # its parent records were copied out
            parents = out.mapPartitions(only_parents, preservesPartitioning=True)
            parents.persist(storage)
            self.parent_rdds[level] = self.pending = parents
        else:  # a small level's output is its parent records (and a run), kept as it is
            self.states_level = None
            self.deltas.append(out)
            self.parent_rdds[level] = out
            self.run_size += rep["new"]
        self.size += rep["new"]
        return rep

    def frontier_rdd(self) -> Any:
        """The last level's new states: the level's output itself (the expansion reads only its
        STATE blocks)."""
        return self.deltas[-1] if self.deltas else self.visited

    def frontier_list(self, rep: dict[str, Any] | None = None) -> list[tuple[bytes, Any]]:
        """The last level's new states in the driver: from the level's report when every partition
        sent them there (``merge_partition``'s ``send``), else by a job."""
        if rep is not None and rep["unsent"] == 0:
            return [pair for _, fps, states in sorted(rep["blocks"], key=lambda b: b[0])
                    for pair in zip(split_fps(fps), decode_states(states), strict=True)]
        return self.frontier_rdd().mapPartitions(state_pairs).collect()

    def parallelize(self, frontier: list[tuple[bytes, Any]]) -> Any:
        """A frontier held in the driver as an RDD of STATE blocks, one per partition."""
        groups: dict[int, list] = {}
        for fp, packed in sorted(frontier, key=lambda item: item[0]):
            groups.setdefault(part_of(fp, self.partitions), []).append((fp, packed))
        records = [(j, (STATE, b"".join(fp for fp, _ in items), encode_states([p for _, p in items])))
                   for j, items in sorted(groups.items())]
        return self.sc.parallelize(records, self.partitions)

    # -- walking back ---------------------------------------------------------------------------

    def parents_at(self, level: int, keys: set[bytes]) -> dict[bytes, tuple]:
        table = self.parents[level]
        if table is not None:
            return {k: table[k] for k in keys}
        wanted = sorted({part_of(k, self.partitions) for k in keys})
        if level in self.parent_dirs:  # a level resumed from the checkpoint: its files
            found = {}
            for i in wanted:
                path = os.path.join(self.parent_dirs[level], part_name("parents", i))
                with open(path, "rb") as fh:
                    found.update(lookup(*read_parents(fh.read()), keys))
            return found
        found = self.sc.runJob(self.parent_rdds[level], lookup_parents(level, frozenset(keys)), wanted)
        return dict(found)

    def paths(self, targets: dict[Any, tuple[int, int]]) -> dict[Any, list[bytes]]:
        """Fingerprints from an initial state to each target (level, fingerprint as an int),
        walking back all targets together, one lookup per level."""
        at = {name: (lv, fp.to_bytes(16, "big")) for name, (lv, fp) in targets.items()}
        paths = {name: [fp] for name, (_, fp) in at.items()}
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

    def stored_bytes(self) -> int | None:
        """Bytes (memory and disk) of the cached blocks that hold the visited set, the parent
        records and the last frontier; None in the driver or when Spark does not say."""
        if self.visited is None:
            return None
        ids = {self.visited.id(), self.base.id(), *(rdd.id() for rdd in self.parent_rdds.values())}
        try:
            return sum(int(info.memSize()) + int(info.diskSize())
                       for info in self.sc._jsc.sc().getRDDStorageInfo() if info.id() in ids)
        except Exception:  # a figure for the statistics only
            return None

    def release(self) -> None:
        resident.drop(self.kept_folder)
        for rdd in [self.visited, self.base, *self.parent_rdds.values()]:
            if rdd is not None and rdd.is_cached:
                rdd.unpersist()


def parents_block(table: dict[bytes, tuple]) -> tuple[bytes, bytes, bytes]:
    """A driver level's parent records of one partition as a block (fingerprints sorted)."""
    fps, parents, actions, _ = block([(fp, (*table[fp], None)) for fp in sorted(table)])
    return fps, parents, actions


def driver_fps(tables: list[dict[bytes, tuple]], partitions: int) -> dict[int, bytes]:
    """{partition: its sorted fingerprints} of parent tables held in the driver."""
    parts: list[list[bytes]] = [[] for _ in range(partitions)]
    for table in tables:
        for fp in table:
            parts[part_of(fp, partitions)].append(fp)
    return {i: b"".join(sorted(fps)) for i, fps in enumerate(parts)}


def computed_only(sc: Any, rdd: Any) -> Any:
    """``rdd`` (persisted) as a side of a union whose partitions compute and store ``rdd``'s blocks
    but yield none of its records: ``sample`` with fraction 0 asks for the parent's partition (which
    computes and stores a persisted block whole) and returns an empty iterator without reading it
    back. The level's merge skips the previous level's parent records anyway; through the union they
    went from the block store through the socket to its Python worker (36 bytes a state) for nothing
    (docs/spark.md, "Issue 24, ninth round"). Same partitioner, so the union stays co-partitioned."""
    from pyspark import RDD

    sampled = RDD(rdd._jrdd.sample(False, 0.0), sc, sc.serializer)
    sampled.partitioner = rdd.partitioner
    return sampled


def co_union(sc: Any, visited: Any, *others: Any) -> Any:
    """The union of RDDs with the same partitioner, partition by partition.

    ``RDD.union`` would add a Python pass to re-serialize one side when the two were written by
    different serializers; both sides hold batches of pickled lists, which the context's default
    serializer reads, so the JVM RDDs are united directly. With equal (JVM) partitioners Spark
    builds a ``PartitionerAwareUnionRDD``: partition i is partition i of each side, no shuffle.
    """
    from pyspark import RDD

    jrdd = visited._jrdd
    for other in others:
        if visited.partitioner != other.partitioner:
            raise AssertionError("the visited set and the candidates must be co-partitioned")
        jrdd = jrdd.union(other._jrdd)
    merged = RDD(jrdd, sc, sc.serializer)
    merged.partitioner = visited.partitioner
    return merged
