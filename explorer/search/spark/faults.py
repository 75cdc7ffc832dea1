"""Faults of the environment that end a Spark run before an answer, each with its documented status
and the statistics of the levels completed so far.

- The driver JVM's ``java.lang.OutOfMemoryError`` (its heap, ``--driver-memory``, is too small for
  the run): a memory limit, like the local engine's ceiling, so the run ends as stopped at a limit
  (exit 5) with a note naming the cause and the way on, never as a crash or a verdict.
- A checkpoint disk that fills up or turns read-only mid-run (the driver's own writes raise
  ``OSError``; an executor's reach the driver as the text of a failed task): ``RunFailed`` (exit 7)
  with the statistics so far and what the checkpoint still holds.

After a JVM fault the Spark context may be unusable, so the statistics here are built from the
driver's own bookkeeping (``_Run``'s counters) and never call into Spark; no traces are rebuilt.
"""

from __future__ import annotations

import contextlib
import errno
import time
from typing import Any

from isrcheck.explorer.errors import RunFailed
from isrcheck.explorer.result import CheckResult

DISK_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO}
DISK_TEXTS = ("No space left on device", "Read-only file system", "Disk quota exceeded")
JVM_OOM = "java.lang.OutOfMemoryError"


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def disk_fault(exc: BaseException) -> str | None:
    """What a failed write says (e.g. "No space left on device"), when ``exc`` is one, else None."""
    for e in _chain(exc):
        if isinstance(e, OSError) and e.errno in DISK_ERRNOS:
            return e.strerror or str(e)
        text = str(e)
        for marker in DISK_TEXTS:
            if marker in text:
                return marker
    return None


def _failed_file(exc: BaseException) -> str:
    return next((str(e.filename) for e in _chain(exc) if isinstance(e, OSError) and e.filename), "")


def jvm_out_of_memory(exc: BaseException) -> bool:
    return any(JVM_OOM in str(e) for e in _chain(exc))


def is_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is one of the faults ``stop_for`` ends a run with."""
    return jvm_out_of_memory(exc) or disk_fault(exc) is not None


def stats_so_far(run: Any, *, limit: str | None = None, note: str = "") -> CheckResult:
    """The levels completed so far as a result, from the driver's counters alone (no Spark call)."""
    return CheckResult(
        distinct_states=run.distinct, generated_states=run.generated, depth=run.depth, complete=False,
        violations=[], elapsed=time.monotonic() - run.started, engine="spark", properties=run.props.names,
        store="fingerprint", levels=[lv["new"] for lv in run.levels if lv["new"]], limit=limit, limit_note=note,
        stats={"frontier_left": run.frontier_size, "levels": run.level, "max_depth": run.max_depth,
               "master": run.opts.get("master"), "resumed_from_level": run.resumed_from,
               "checkpoint": str(run.checkpoint.dir) if run.checkpoint else None,
               "failed_level": run.level + 1, "violations_found_so_far": sorted(run.findings)},
    )


def _found(run: Any) -> str:
    if not run.findings:
        return ""
    return (f" Violations of {', '.join(sorted(run.findings))} had been found; their traces could not be rebuilt "
            "after the fault: run again to see them.")


def stop_for(run: Any, exc: BaseException) -> CheckResult:
    """The result a fault (``is_fault``) ends the run with (the driver out of memory: a memory
    limit), or ``RunFailed`` raised (a disk that failed)."""
    if jvm_out_of_memory(exc):
        note = (f"Stopped at the memory limit: the Spark driver's JVM ran out of heap (java.lang.OutOfMemoryError) "
                f"while computing level {run.level + 1}; the statistics cover the {run.level} complete level(s) "
                f"and {run.frontier_size:,} states were left to expand. Give the driver more memory "
                f"(--driver-memory, e.g. 4g) or lower --driver-threshold so that fewer states are held "
                "in the driver." + _found(run))
        if run.checkpoint is not None:
            note += f" The checkpoint in {run.checkpoint.dir} keeps the complete levels: resume with --resume."
        return stats_so_far(run, limit="memory", note=note)
    cause = disk_fault(exc) or "a write failed"
    if run.checkpoint is not None:
        with contextlib.suppress(Exception):  # the level in progress is no checkpoint; a read-only disk may refuse
            run.checkpoint.discard_unfinished()
        where = f"the checkpoint folder {str(run.checkpoint.dir)!r}"
        way = ("free space there (or make it writable) and run the same command with --resume: the checkpoint "
               f"keeps the levels its manifest names (up to level {run.level} or before)")
    else:
        where, way = "Spark's local folders (spark.local.dir)", "free space there and run again"
    if _failed_file(exc) and not (run.checkpoint and _failed_file(exc).startswith(str(run.checkpoint.dir))):
        where = repr(_failed_file(exc))
    raise RunFailed(f"writing to {where} failed at level {run.level + 1} ({cause}); the statistics above cover "
                    f"the {run.level} complete level(s). To go on, {way}." + _found(run),
                    result=stats_so_far(run)) from None
