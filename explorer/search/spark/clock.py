"""A per-phase CPU clock of the engine's tasks, for measuring where a level's CPU goes.

Off unless ``ISRCHECK_SPARK_CLOCK`` names a file (in the environment of the executors' Python
workers: on one machine they inherit the driver's; ``spark.executorEnv.ISRCHECK_SPARK_CLOCK`` for
``local-cluster``). Each task then appends one line per phase to that file: the stage, level,
partition, phase, the process's CPU seconds spent in it and the worker's pid. Off, ``start`` returns
``OFF``, whose ``mark`` does nothing: a few calls a task, nothing per state. Not part of a run's
results: ``bench/bench_spark_clock.py`` sums the lines by phase (docs/spark.md, "Issue 24, ninth
round").
"""

from __future__ import annotations

import os
import time

PATH = os.environ.get("ISRCHECK_SPARK_CLOCK") or None
# the worker's CPU when its last task's clock closed (a forked worker's CPU starts at 0): what it
# spends between two tasks (PySpark reading the next task, writing the last one's final batch)
_last_end = 0.0


class _Off:
    def mark(self, phase: str) -> None:
        pass

    def close(self) -> None:
        pass


OFF = _Off()
# the first phase of every task's clock: one such line per task run (``bench_spark_clock`` counts them)
FIRST = "before the task (fork, PySpark)"


class Clock:
    """The CPU time of one task's phases, written when the task ends (``close``)."""

    def __init__(self, stage: str, level: int, index: int):
        self.head = f"{stage}\t{level}\t{index}"
        self.last = _last_end
        self.lines: list[str] = []
        self.mark(FIRST)

    def mark(self, phase: str) -> None:
        """The CPU since the last mark (or the start) goes to ``phase``."""
        now = time.process_time()
        self.lines.append(f"{self.head}\t{phase}\t{now - self.last:.6f}\t{os.getpid()}\n")
        self.last = now

    def close(self) -> None:
        global _last_end
        _last_end = time.process_time()
        try:
            with open(PATH, "a") as fh:  # one write of a few lines: appends from processes do not interleave
                fh.write("".join(self.lines))
        except OSError:
            pass  # a measurement aid: never fails a task


def start(stage: str, level: int, index: int) -> Clock | _Off:
    return Clock(stage, level, index) if PATH else OFF
