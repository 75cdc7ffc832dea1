"""The functions Spark runs on executors, one call per partition of a level.

A partition of a level's output holds a handful of records, each one block (``blocks``):

- ``(i, (VISITED, offset, fingerprints))``: the partition's visited set, sorted (``S16``), in
  chunks of at most ``CHUNK`` bytes (a JVM task holds a record whole: big records ran a 1 GB
  driver out of heap in local mode);
- ``(i, (PARENTS, level, (fingerprints, parents, actions)))``: the level's parent records,
  which ``only_parents`` copies into an RDD of their own (kept on disk, read again only to walk
  a trace back), so that no later level reads or writes them again;
- ``(i, (STATE, fingerprints, states))``: the level's new states, packed, in fingerprint order;
  in a level's output the fingerprints are None: they are its PARENTS record's, which comes
  just before it in the same partition (``state_fps``; 16 bytes a state less through the JVM);
- ``(i, (RUN, fingerprints))``: instead of the visited set, in the output of a small level (one
  whose frontier was expanded in the driver): its new fingerprints only. The next levels read the
  last full output and these runs together, so a small level reads the visited set once and
  writes only what it adds; the next large level merges them all into one array again.

``expand_partition`` reads the STATE block and sends one ``(j, (CANDS, ...))`` block to every
partition j its successors fall in (on one machine, a ``(j, (CANDS_FILE, level, source, count,
size))`` reference to a file holding that block instead: ``candfiles``); ``merge_partition``
meets those with partition j's previous output (a co-partitioned union, no shuffle of the visited
set) and writes the next output. So a level moves a few records per partition pair instead of one
pickled object per state, and the visited set is merged with the new fingerprints as arrays (in C
where ``fast`` is built, else NumPy: ``steps.merge``) instead of being rebuilt.

Reports (counts, properties) go to an accumulator, so materializing a level takes one Python pass
per stage and no Python action.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

from isrcheck.explorer.search.spark import candfiles, clock, fast, resident
from isrcheck.explorer.search.spark.blocks import (
    FP,
    NotPlain,
    check_checkpoint_states,
    checkpoint_states,
    decode_states,
    encode_states,
    frontier_bytes,
    lookup,
    parents_bytes,
    read_frontier,
    read_parents,
)
from isrcheck.explorer.search.spark.level import (
    CANDS,
    CANDS_FILE,
    PARENTS,
    PARTITION_AUDIT,
    RUN,
    STATE,
    VISITED,
    load_context,
    merge_reports,
    new_report,
)
from isrcheck.explorer.search.spark.steps import BadBlock, expand, merge, split

CHUNK = 4 << 20


def visited_records(index: int, fps: bytes) -> Iterator[tuple[int, tuple]]:
    for offset in range(0, max(len(fps), 1), CHUNK):
        yield index, (VISITED, offset, fps[offset:offset + CHUNK])


def split_fps(data: bytes) -> list[bytes]:
    return [data[i:i + FP] for i in range(0, len(data), FP)]


def expand_partition(payload: tuple, transition: frozenset[str], partitions: int, reports: Any,
                     kept: tuple[str, int] | None = None, cands_to: tuple[str, int] | None = None):
    """mapPartitionsWithIndex function: a partition's STATE block(s) -> one CANDS block per
    destination; its report goes to ``reports`` under the partition's index (``level.ReportParam``).
    ``kept``: (folder, level): the items are placeholders and the STATE block is read from the
    file the previous (full) level's merge kept there (``resident``); where this machine has no
    such file, the task reports ``missing`` and sends no candidates (the driver runs the level
    again from Spark's copy). ``cands_to``: (folder, level): each destination's block is written to a
    file there and only a reference to it goes through the shuffle (``candfiles``; a block that is
    not written, a pickled one, goes through Spark)."""

    def run(index: int, items: Iterator[tuple[int, tuple]]) -> Iterator[tuple[int, tuple]]:
        clk = clock.start("expand", cands_to[1] if cands_to else -1, index)
        ctx = load_context(payload)
        clk.mark("context")
        if kept is not None:
            for _ in items:  # placeholders, read to the end so that PySpark reuses this worker
                pass
            block = resident.load_states(kept[0], index, kept[1])
            clk.mark("read kept states")
            # decoded here, not in the loop: a file damaged after it was written whole (its states'
            # block cut short, or not as many states as fingerprints) is missing too, as candidates
            # files are (``candfiles``), instead of failing the task, its retries and so the run
            states = _decoded(block)
            clk.mark("decode frontier")
            if states is None:
                rep = new_report()
                rep["missing"] = 1
                reports.add({("expand", index): rep})
                clk.close()  # a task that ends early is counted too (and the next one starts its clock here)
                return
            items = iter([(index, (STATE, block[0], states))])
        compiled = fast.applies(ctx, transition)  # the whole loop in C (``fast``), same results
        cands: Any = fast.Candidates() if compiled else {}
        found = []
        audit = PARTITION_AUDIT  # a couple of states of every partition are audited on executors
        fps_of = state_fps()
        for _, value in items:
            fps = fps_of(value)
            if fps is None:
                continue
            states = value[2] if kept is not None else decode_states(value[2])  # a kept file's: decoded above
            clk.mark("decode frontier")
            if compiled:
                rep = fast.expand(ctx, fps, states, cands, audit)
                clk.mark("expand (C)")
            else:
                _, rep = expand(ctx, split_fps(fps), states, transition, cands, audit)
            audit = 0
            found.append(rep)
        reports.add({("expand", index): merge_reports(found)})
        clk.mark("expand (rest)")
        blocks = fast.split(ctx, cands, partitions) if compiled else split(ctx, cands, partitions)
        del cands
        clk.mark("fingerprints and split")
        for j, blk in sorted(blocks.items()):
            written = candfiles.write(cands_to[0], cands_to[1], index, j, blk) if cands_to is not None else None
            clk.mark("write candidate files")
            if written is None:
                yield j, (CANDS, *blk)
            else:
                yield j, (CANDS_FILE, cands_to[1], index, *written)
            clk.mark("send")
        clk.close()

    return run


def _decoded(block: tuple[bytes, bytes] | None) -> list[Any] | None:
    """The states of a kept states file's (fingerprints, states' block), or None when there is no
    file or its block does not decode to one state a fingerprint."""
    if block is None:
        return None
    try:
        states = decode_states(block[1])
    except (EOFError, ValueError, TypeError):  # what marshal raises on bytes it did not write
        return None
    return states if isinstance(states, list) and len(states) * FP == len(block[0]) else None


def merge_partition(payload: tuple, level: int, always: frozenset[str], sometimes: frozenset[str],
                    reports: Any, extra: Any = None, save_dir: str | None = None, send: int = 0,
                    full: bool = True, keep: tuple[str, int] | None = None, use: tuple[str, int] | None = None,
                    keep_states: str | None = None, cands_from: str | None = None):
    """mapPartitionsWithIndex function over one partition of (the previous level's output, this
    level's CANDS blocks). ``extra``: a broadcast of {partition: [CANDS block]} when the candidates
    come from the driver (a small level expanded in process). ``save_dir``: the checkpoint's
    folder for this level, where each partition writes its parent records and new states itself
    (so a checkpoint costs no extra job). ``send``: a partition with at most this many new states
    sends them to the driver with its report (a small level's frontier, without another job).
    ``full``: write the whole visited set (else a RUN of the new fingerprints). ``keep``: (folder,
    level): a full level also writes its new visited array there (``resident``); ``use``: (folder,
    level): a level whose input lacks the visited set maps it from there (a full level then writes
    its new array only to ``keep``, not into its output), or, where this
    machine has no such file, reports ``missing`` and writes nothing (the driver runs the level again
    with the visited set in its input). ``keep_states``: a folder where a full level also writes
    its new states for the next level's expansion (``resident.keep_states``). ``cands_from``: the
    folder of the CANDS_FILE references' files (``candfiles``); a partition that finds one of them
    missing, or whose states do not decode (``steps.BadBlock``), reports ``missing`` and writes
    nothing, as for ``use``."""

    def run(index: int, items: Iterator[tuple[int, tuple]]) -> Iterator[tuple[int, tuple]]:
        clk = clock.start("merge" if full else "merge small", level, index)
        ctx = load_context(payload)
        mapped = resident.load(use[0], index, use[1]) if use is not None else None
        clk.mark("context")
        if use is not None and mapped is None:
            for _ in items:  # read to the end, so that PySpark reuses this worker
                pass
            rep = new_report()
            rep["missing"] = 1
            reports.add({("merge", index): rep})
            clk.close()
            return
        chunks: list[tuple[int, bytes]] = []
        runs: list[bytes] = []
        blocks: list[tuple] = []
        refs: list[tuple] = []
        if extra is not None:
            items = itertools.chain(items, ((index, (CANDS, *b)) for b in extra.value.get(index, ())))
        for _, value in items:
            tag = value[0]
            if tag == VISITED:
                chunks.append(value[1:])
            elif tag == RUN:
                runs.append(value[1])
            elif tag == CANDS:
                blocks.append(value[1:])
            elif tag == CANDS_FILE:
                refs.append(value[1:])
            # STATE: the previous level's states, read by the expansion; PARENTS: the previous
            # level's, copied out by ``only_parents`` in this same job
        clk.mark("read input")
        # in source order, as the shuffle delivers no order at all (the merge's result does not depend on it)
        for level_of, source, n, size in sorted(refs, key=lambda ref: ref[1]):
            blk = candfiles.read(cands_from, level_of, source, index, n, size) if cands_from is not None else None
            if blk is None:
                rep = new_report()
                rep["missing"] = 1
                reports.add({("merge", index): rep})
                clk.close()
                return
            blocks.append(blk)
        clk.mark("read candidate files")
        visited = b"".join(chunk for _, chunk in sorted(chunks)) if mapped is None else mapped
        del chunks
        clk.mark("join visited")
        try:
            visited, parents, states, rep = merge(ctx, visited, blocks, always, sometimes, b"".join(runs), full, clk)
        except BadBlock:
            if not refs:
                raise  # the shuffle's blocks: the run's own bug, not a damaged file
            # a candidates file whose states do not decode (damaged after it was written whole):
            # as for a missing one, nothing written, and the level runs again through the shuffle
            rep = new_report()
            rep["missing"] = 1
            reports.add({("merge", index): rep})
            clk.close()
            return
        clk.mark("merge")
        rep["cand_files"] = len(refs)
        del blocks
        clk.mark("free candidates")
        if keep is not None and full:
            rep["kept_fps"] = int(resident.keep(keep[0], index, keep[1], visited))
        clk.mark("keep visited")
        states_blob = encode_states(states)
        clk.mark("encode states")
        if keep_states is not None and full:
            rep["kept_states"] = int(resident.keep_states(keep_states, index, level, parents[0], states_blob))
        clk.mark("keep states")
        if len(states) <= send:
            rep["blocks"] = [(index, parents[0], states_blob)]
        else:
            rep["unsent"] = 1
        reports.add({("merge", index): rep})
        if save_dir is not None:
            write_part(save_dir, index, parents_bytes(*parents), frontier_bytes(parents[0], states_blob))
        if full and mapped is None:
            yield from visited_records(index, visited)
        elif full:
            # read from a kept file: the new array is in the next one (``keep``), and Spark keeps what
            # rebuilds it (``rebuild_visited``): no copy of the whole set through Spark a level
            pass
        else:
            yield index, (RUN, parents[0])
        clk.mark("report, checkpoint")
        yield index, (PARENTS, level, parents)
        yield index, (STATE, None, states_blob)  # its fingerprints are the PARENTS record's (``state_fps``)
        clk.mark("send")
        clk.close()

    return run


def rebuild_visited(after: int, upto: int):
    """mapPartitionsWithIndex function over (an output holding the visited set of level ``after``,
    the parent records of the levels after it): partition i's visited set of level ``upto``, for a
    level whose kept file is missing (``resident``). The fingerprints of levels ``after + 1`` to
    ``upto`` are their parent records' (each level's new states, disjoint from the set before)."""

    def run(index: int, items: Iterator[tuple[int, tuple]]) -> Iterator[tuple[int, tuple]]:
        import numpy as np

        chunks: list[tuple[int, bytes]] = []
        news: list[bytes] = []
        for _, value in items:
            if value[0] == VISITED:
                chunks.append(value[1:])
            elif value[0] == PARENTS and after < value[1] <= upto:
                news.append(value[2][0])
        fps = np.sort(np.frombuffer(b"".join([*(chunk for _, chunk in sorted(chunks)), *news]), dtype="S16"))
        yield from visited_records(index, fps.tobytes())

    return run


def only_parents(items: Iterator[tuple[int, tuple]]) -> Iterator[tuple[int, tuple]]:
    """mapPartitions function: a level output's parent records, for the RDD that keeps them."""
    clk = clock.start("parents", -1, -1)
    for record in items:
        if record[1][0] == PARENTS:
            yield record
    clk.mark("copy")
    clk.close()


def part_name(kind: str, index: int) -> str:
    return f"{kind}-{index:05d}.bin"


# Markers of errors raised on executors, found in the driver's exception text (engine._contract_error).
NOT_DATA = "isrcheck-checkpoint-not-data: "
UNREADABLE = "isrcheck-checkpoint-unreadable: "


def write_file(path: str, data: bytes) -> None:
    """``data`` at ``path``, written whole under a temporary name, then renamed."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_part(directory: str, index: int, parents: bytes, frontier: bytes) -> None:
    """One partition's share of a checkpointed level. A task run again after its level was
    committed (a recomputed cache block) finds no folder and skips."""
    if not os.path.isdir(directory):
        return
    try:
        checkpoint_states(read_frontier(frontier)[1])  # this task's own block: it names the states' type
    except NotPlain as exc:
        # read by engine._contract_error: a UserError in the driver, not a stack trace
        raise ValueError(f"{NOT_DATA}{exc}") from None
    for kind, data in (("parents", parents), ("frontier", frontier)):
        write_file(os.path.join(directory, part_name(kind, index)), data)


def read_blocks(level_dirs: dict[int, str], driver: dict[int, bytes]):
    """mapPartitionsWithIndex function (over ``range(partitions)``): partition i's visited set
    rebuilt from the parent files of the checkpointed levels ``level_dirs`` ({level: folder}) and
    the fingerprints of the driver's levels (``driver``: {partition: fingerprints})."""

    def run(index: int, _: Any) -> Iterator[tuple[int, tuple]]:
        import numpy as np

        parts = [driver.get(index, b"")]
        for level in sorted(level_dirs):
            with open(os.path.join(level_dirs[level], part_name("parents", index)), "rb") as fh:
                parts.append(read_parents(fh.read())[0])
        fps = np.sort(np.frombuffer(b"".join(parts), dtype="S16"))
        yield from visited_records(index, fps.tobytes())

    return run


def read_frontier_part(directory: str):
    """mapPartitionsWithIndex function (over ``range(partitions)``): partition i's new states of a
    checkpointed level, as one STATE record."""

    def run(index: int, _: Any) -> Iterator[tuple[int, tuple]]:
        path = os.path.join(directory, part_name("frontier", index))
        with open(path, "rb") as fh:
            fps, states = read_frontier(fh.read())
        try:
            check_checkpoint_states(states)  # data only: the expansion decodes it later
        except NotPlain as exc:
            raise ValueError(f"{UNREADABLE}{path}: {exc}") from None
        yield index, (STATE, fps, states)

    return run


def lookup_parents(level: int, keys: frozenset[bytes]):
    """runJob function: the (parent, action index) of ``keys`` at ``level`` in one partition."""

    def run(items: Iterator[tuple[int, tuple]]) -> list[tuple[bytes, tuple]]:
        found = []
        for _, value in items:
            if value[0] == PARENTS and value[1] == level:
                found.extend(lookup(*value[2], keys).items())
        return found

    return run


def state_pairs(items: Iterator[tuple[int, tuple]]) -> Iterator[tuple[bytes, Any]]:
    """mapPartitions function: (fingerprint, packed state) of a partition's STATE block."""
    fps_of = state_fps()
    for _, value in items:
        fps = fps_of(value)
        if fps is not None:
            yield from zip(split_fps(fps), decode_states(value[2]), strict=True)


def state_fps():
    """A reader of one partition's records in order: for a STATE record, its fingerprints (in a
    level's output, those of the PARENTS record just before it: the same states in the same order);
    None for any other record. A STATE record without fingerprints that does not come just after a
    PARENTS record is the run's own bug (``merge_partition`` yields the two in turn): ValueError,
    never the fingerprints of another block, which would pair states with other states' keys
    whenever the counts happen to agree."""
    last: list[bytes | None] = [None]

    def fps_of(value: tuple) -> bytes | None:
        before, last[0] = last[0], None
        if value[0] == PARENTS:
            last[0] = value[2][0]
        elif value[0] == STATE:
            if value[1] is not None:
                return value[1]
            if before is None:
                raise ValueError("a level's STATE block without its PARENTS record just before it")
            return before
        return None

    return fps_of
