"""Surviving the loss of an executor, and the report when a loss cannot be survived.

What a lost executor takes with it: the blocks it kept (every level's output is persisted on disk
and local-checkpointed, so its lineage is cut and Spark cannot recompute a lost block from it),
the shuffle files of the level under way (Spark recomputes those from the previous level's
output), and the tasks it was running (Spark runs them again). So a run survives the loss when
every kept block has a second copy on another executor: the engine persists its blocks with
replication 2 whenever the application has two or more executors (``storage_level``). A level
that loses shuffle files runs some expansion tasks twice; their reports are keyed by task
(``level.TaskReports``), so the counts stay exact.

What cannot be survived (both copies of a block lost: two executors lost close together, or the
only executor; the application removed by the master; the driver's own JVM gone) ends the run
with ``LostExecutor``: exit status 6, one paragraph naming the cause and the way on (``--checkpoint``
and ``--resume``), and the statistics of the complete levels. Never exit 1: a lost executor is not
a violation.
"""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.errors import LostWorker

# Text of the driver-side exceptions Spark raises when executors, their blocks or the application
# itself are gone (Spark 3.5-4.x wording).
_LOSS_MARKERS = (
    "Checkpoint block",  # a local-checkpointed block whose every copy was lost
    "ExecutorLostFailure",
    "FetchFailed",
    "Master removed our application",
    "SparkContext was shut down",
    "Cannot call methods on a stopped SparkContext",
    "Failed to get broadcast",
)


class LostExecutor(LostWorker):
    """Spark lost an executor (or the application) in a way the run could not survive: exit 6."""


def executor_count(sc: Any) -> int:
    """Live executors of the application, the driver not counted (0 in local mode, where the
    driver runs the tasks itself)."""
    try:
        infos = sc.statusTracker().getExecutorInfos()
    except Exception:  # a stopped context: no executor to replicate to
        return 0
    return max(0, len(infos) - 1)


def storage_level(sc: Any, replicas: int | None = None) -> Any:
    """On disk (never the JVM's heap, which in local mode is the driver's), with a second copy on
    another executor when the application has two or more: a lost executor then loses no block
    whose lineage was cut. ``replicas`` forces the count (the benchmark's A/B)."""
    from pyspark import StorageLevel

    if replicas is None:
        replicas = 2 if executor_count(sc) >= 2 else 1
    return StorageLevel(True, False, False, False, replicas)


def is_loss(exc: BaseException) -> bool:
    """Whether a failed Spark call failed because executors, their blocks or the application were
    lost (as opposed to the model, the user's input or isrcheck itself)."""
    text = f"{type(exc).__name__}: {exc}"
    return any(marker in text for marker in _LOSS_MARKERS)


def cause_line(exc: BaseException) -> str:
    """The first line of Spark's message that names the loss, for the report."""
    for line in str(exc).splitlines():
        if any(marker in line for marker in _LOSS_MARKERS):
            # "...: org.apache.spark.SparkException: [CODE] Checkpoint block rdd_83_1 not found!":
            # the JVM's class names say nothing to a user, the last message does
            return line.rsplit("Exception: ", 1)[-1].strip(" :")[:300]
    return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__


def lost_message(exc: BaseException, *, level: int, distinct: int, generated: int, depth: int,
                 checkpoint: str | None) -> str:
    """One paragraph: what was lost, what the statistics so far are, and the way on."""
    levels = f"{level} complete level{'s' if level != 1 else ''}"
    text = (f"Spark lost an executor and could not recover the blocks of the run it held ({cause_line(exc)}). "
            f"The run stopped after {levels}: {distinct:,} distinct states, {generated:,} states generated, "
            f"depth {depth}; level {level + 1} was not finished. ")
    if checkpoint:
        text += (f"The checkpoint in {checkpoint} keeps the complete levels: run the same command with --resume "
                 f"to continue from level {level + 1}.")
    else:
        text += ("Without --checkpoint DIR nothing was kept: run again with --checkpoint DIR (on storage every "
                 "executor sees), which keeps every complete level, so that a later loss is resumed with "
                 "--resume instead of starting again.")
    return text + " A run survives a lost executor when it has two or more (see docs/spark.md, Faults)."
