"""A level's candidates kept as files between its expansion and its merge, on one machine.

Through Spark, an expansion task's CANDS block for a destination partition (``tasks``: the
candidates' fingerprints, parents, action indices and states) is written by the Python worker to
the JVM, written by the JVM to a shuffle file, read back and sent to the merge's Python worker: at
KIP-320 3/2/2/3 about 1.2 GB a run, a large share of the JVM's CPU (docs/spark.md, "Issue 24,
eighth round"). Where every executor sees the driver's disk (the run has a kept folder,
``resident``), the task writes each such block to ``<folder>/c<level>-<source>-<destination>.cands``
instead and sends through the shuffle only a reference (level, source task, candidate count, file
size); the merge task reads the files its references name. The ``partitionBy`` still carries the
references, so the merge stays the same job's second stage and starts only once every expansion
task has finished (every file its references name is there).

A file is named by (level, source partition, destination partition) and written whole under a
temporary name, then renamed: a task Spark runs twice (a retried or re-run attempt) writes the same
bytes under the same name (tasks are deterministic), and a reader sees either copy whole, never a
half-written one. It holds data only: a header (magic and candidate count), the fingerprints,
parents and action indices, and the states' ``marshal`` block; a pickled block (a model whose
packed states marshal cannot write) stays in Spark. A reference whose file is not there, or is not
the one it names (another size, another header, a states block of another count), reads as
missing, and so does one whose states do not decode (``steps.BadBlock``: damaged after it was
written whole): the merge reports ``missing`` and writes nothing, and the driver runs the level again
the ordinary way (``store._compute``). The driver removes a level's files once its level is
computed (``drop_level``), and the run's folder when the run ends (``resident.drop``).
"""

from __future__ import annotations

import contextlib
import glob
import os
import struct

MAGIC = b"ISRCND01"
_HEADER = struct.Struct("<8sI")
_COUNT = struct.Struct("<i")
_FP, _ACTION = 16, 4


def path_of(folder: str, level: int, source: int, dest: int) -> str:
    return os.path.join(folder, f"c{level:05d}-{source:05d}-{dest:05d}.cands")


def write(folder: str, level: int, source: int, dest: int, block: tuple[bytes, bytes, bytes, bytes]
          ) -> tuple[int, int] | None:
    """Write one CANDS block (fingerprints, parents, actions, states' block); (candidate count, file
    size) for the reference, or None when it is not written (a pickled block, or a file that cannot
    be written: a full disk, or the run's folder gone because the run ended), in which case the block
    goes through Spark."""
    fps, parents, actions, states = block
    if states[:1] != b"M":
        return None  # a pickle: data files never hold one
    n = len(fps) // _FP
    path = path_of(folder, level, source, dest)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:  # the folder is the driver's: never created here
            fh.writelines((_HEADER.pack(MAGIC, n), fps, parents, actions, states))
            size = fh.tell()
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        return None
    return n, size


def read(folder: str, level: int, source: int, dest: int, n: int, size: int
         ) -> tuple[bytes, bytes, bytes, bytes] | None:
    """The CANDS block a reference (``n`` candidates, ``size`` bytes) names, or None when this
    machine has no such file or it is not the one the reference names. The fingerprints, parents
    and actions are memory views (bytes-like, as ``steps.merge`` joins them), the states bytes."""
    at = _HEADER.size
    fps_end = at + n * _FP
    parents_end = fps_end + n * _FP
    actions_end = parents_end + n * _ACTION
    try:
        with open(path_of(folder, level, source, dest), "rb") as fh:
            if os.fstat(fh.fileno()).st_size != size or size < actions_end + 6:
                return None
            # two reads, no slicing: the fingerprints, parents and actions are views of the first
            # buffer, the states' block the second (what ``fast.pick`` reads): no copy of either
            head = fh.read(actions_end)
            states = fh.read()
    except OSError:
        return None
    # the states' block is marshal of a list of as many states (``blocks.encode_states``): a file
    # whose list says another count is not the one the reference names (the merge would index past it)
    if len(head) != actions_end or len(head) + len(states) != size or _HEADER.unpack_from(head) != (MAGIC, n) \
            or states[:2] != b"M[" or _COUNT.unpack_from(states, 2)[0] != n:
        return None
    view = memoryview(head)
    return view[at:fps_end], view[fps_end:parents_end], view[parents_end:actions_end], states


def drop_level(folder: str | None, level: int) -> None:
    """Remove a level's candidate files (and any temporary file a killed task left): the driver,
    once the level's output is computed and local-checkpointed, so no task reads them again."""
    if folder is None:
        return
    for name in glob.glob(os.path.join(folder, f"c{level:05d}-*")):
        with contextlib.suppress(OSError):
            os.remove(name)
