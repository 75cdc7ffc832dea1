"""A partition's visited array kept as a plain file beside Spark's copy, for the levels that follow.

A small level (its frontier small against the visited set, ``store``: ``full`` false) tests a few
candidates against each partition's sorted fingerprints and writes only a run of its new ones. Read
through Spark, that test costs a read of the whole array, 16 bytes a stored state, from the disk
store through the socket to the Python worker, unpickled and joined: at 10^7 states three
quarters to nine tenths of such a level's time (docs/spark.md, "Issue 24, fifth round"), and growing with the
visited set. Memory-mapped from a file, a search touches a few pages per candidate.

So every full level also writes each partition's new array to ``<folder>/<index>-<level>.fps``
(named by the level); the levels after it leave the visited set out of their job's input and map
that file instead, and a full level that mapped one writes its new array only to its own file, not
into its output (docs/spark.md, "Issue 24, seventh round"). Spark's copy stays the truth: the last
array a level's output holds and the parent records of the levels since (``store``). A task that
finds no file (another machine, a resumed run, a task run again after its level replaced the file)
reports it (``missing``) and writes nothing, and the driver runs the level again the ordinary way,
over the visited set rebuilt from Spark's copy (``store._visited_source``). A file is only ever written
whole under a temporary name and renamed, holds raw fingerprints (nothing that runs), and is
replaced by the next kept level's.

A full level's new states are kept the same way (``keep_states``, ``<index>-<level>.states``: the
fingerprints and the marshal block of the packed states, the bytes of a checkpoint's frontier
file), so that the next level's expansion reads them from the file instead of streaming the whole
cached output (the visited set's chunks, the parent records, the states) through Spark to skip to
its STATE block (docs/spark.md, "Issue 24, sixth round"). The same rule holds: a task that finds no
file (or a damaged one: too short for its count, or a block that does not decode to one state a
fingerprint, ``tasks._decoded``) reports ``missing``, yields no candidates, and the driver runs
the level again from Spark's copy. Only marshal blocks are written (a pickled block stays in
Spark), and a partition keeps its two newest states files: a task of the level that reads one may
run again while the level after it is being merged.

Only where every executor sees the driver's disk (``local[N]``, ``local-cluster``): the folder is
under the driver's Spark temporary directory (``SparkFiles.getRootDirectory()``), which Spark
removes when its JVM exits, and the driver removes its run's folder when the run ends.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
from typing import Any

FOLDER = "isrcheck-visited"


def folder_for(sc: Any, token: str) -> str | None:
    """The run's folder of kept arrays, created here (in the driver), or None where executors may
    not share the driver's disk or it cannot be created. Tasks only write into it, never create it:
    a task still running after its run ended (an executor's, after a loss) finds it gone and writes
    nothing, so nothing is left behind once the driver removed it (``drop``)."""
    if not str(sc.master).startswith("local"):
        return None
    from pyspark import SparkFiles

    folder = os.path.join(SparkFiles.getRootDirectory(), FOLDER, token)
    try:
        os.makedirs(folder)
    except OSError:
        return None
    return folder


def _path(folder: str, index: int, level: int) -> str:
    return os.path.join(folder, f"{index:05d}-{level:05d}.fps")


def _write_whole(path: str, data: Any, *more: Any) -> bool:
    """``data`` (then ``more``, written after it: no joined copy) at ``path`` under a temporary
    name, then renamed; False (and nothing left) when it cannot be written. Not
    ``outputs.write_atomically``: these files are a cache that Spark's copy backs, so they are not
    synced to disk (a file lost in a crash makes its level run through Spark)."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.writelines((data, *more))
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        return False
    return True


def keep(folder: str, index: int, level: int, fps: Any) -> bool:
    """Write partition ``index``'s visited array (sorted fingerprints, bytes or ``S16``) of ``level``,
    then remove that partition's older files (no later job reads them: every level's output is
    local-checkpointed, so a level's task is not run again once its job is done; a task run again
    within its job, after a lost executor, finds no file and its level runs through Spark). True
    when the file is there. Best effort: a file that cannot be written (a full disk) is left out,
    and the levels that would have mapped it run through Spark as they would without this module."""
    path = _path(folder, index, level)
    if not _write_whole(path, fps):
        return False
    for old in glob.glob(os.path.join(folder, f"{index:05d}-*.fps")):
        if old != path:
            with contextlib.suppress(OSError):
                os.remove(old)
    return True


def load(folder: str, index: int, level: int) -> Any:
    """Partition ``index``'s kept array of ``level`` as a read-only memory-mapped ``S16`` array, or
    None when this machine has no such file."""
    import numpy as np

    path = _path(folder, index, level)
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    if size % 16:
        return None  # never written so (files are renamed whole); treated as missing all the same
    if size == 0:
        return np.zeros(0, dtype="S16")
    return np.memmap(path, dtype="S16", mode="r")


def _states_path(folder: str, index: int, level: int) -> str:
    return os.path.join(folder, f"{index:05d}-{level:05d}.states")


def keep_states(folder: str, index: int, level: int, fps: bytes, states: bytes) -> bool:
    """Write partition ``index``'s new states of ``level`` (their fingerprints, and an
    ``encode_states`` block that is marshal, never a pickle); True when the file is there. Removes
    that partition's states files older than ``level - 1``. Best effort, as ``keep``."""
    from isrcheck.explorer.search.spark.blocks import frontier_header

    if states[:1] != b"M":
        return False  # a pickled block: only Spark's copy holds it
    path = _states_path(folder, index, level)
    # ``blocks.frontier_bytes`` in three pieces: the states' block is not copied into a joined one
    if not _write_whole(path, frontier_header(fps), fps, states):
        return False
    for old in glob.glob(os.path.join(folder, f"{index:05d}-*.states")):
        if int(os.path.basename(old).split("-")[1].split(".")[0]) < level - 1:
            with contextlib.suppress(OSError):
                os.remove(old)
    return True


def load_states(folder: str, index: int, level: int) -> tuple[bytes, bytes] | None:
    """Partition ``index``'s kept (fingerprints, marshal block of states) of ``level``, or None
    when this machine has no such file (or it is not one ``keep_states`` wrote)."""
    from isrcheck.explorer.search.spark.blocks import read_frontier_file

    try:
        with open(_states_path(folder, index, level), "rb") as fh:
            fps, states = read_frontier_file(fh)
    except (OSError, ValueError):
        return None
    return (fps, states) if states[:1] == b"M" else None


def drop(folder: str | None) -> None:
    """Remove the run's folder (the driver, when the run ends)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
