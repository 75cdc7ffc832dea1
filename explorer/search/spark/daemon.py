"""PySpark's Python daemon with the engine's modules already imported, for sessions on one machine.

PySpark starts one daemon per executor, which forks a Python worker for each task that finds no idle
one; a forked worker then imports what its task's functions need. For the engine that is the
whole ``isrcheck`` package (its ``__init__`` imports the checker), the level's task modules and,
to unpickle the run's model, the model's package: about 0.5 s of CPU per worker, on the cores
the first Spark levels run on, with four workers to start on two cores (two per task once a
level also copies the previous level's parent records). Imported here, once, before the daemon
forks, every worker inherits them (docs/spark.md, "seventh round").

What is not imported here, because the daemon must not start threads before it forks (as
PySpark's own daemon says): NumPy (OpenBLAS starts a thread pool when loaded). Nothing here
prints: the daemon's first line on stdout is the port the JVM reads.

A session the engine creates uses this module as ``spark.python.daemon.module`` only for a
local master (``local[N]``, ``local-cluster``), whose executors run the driver's interpreter and
so have ``isrcheck`` (``tuning.engine_settings``). Any import that fails is left to the task that
needs it, which reports it as before; an executor's Python without ``isrcheck`` at all (a
``PYSPARK_PYTHON`` of another environment) cannot start this daemon, and every task fails with
Python's "No module named 'isrcheck'", which the engine reports as before (exit 2).
"""

from __future__ import annotations

import contextlib

# the modules a level's tasks import (the task functions, their blocks, the C map side) and the
# project's own model package, which a payload of the bundled model unpickles by reference
PRELOAD = ("pyspark.worker", "isrcheck.explorer.search.spark.tasks", "isrcheck.model")


def preload() -> None:
    """Import ``PRELOAD``; an import that fails stays for the task to report."""
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(name)


if __name__ == "__main__":
    preload()
    # PySpark's daemon runs gc.collect() in a reused worker after every task: a full collection
    # walks every object the imports above made (some 40 ms of CPU a task at 3/2/2/3: docs/spark.md,
    # "Issue 24, ninth round"). Frozen here, before the forks, the collector leaves them alone: it
    # no longer writes its marks into them (reference counts still do, so a page a worker touches
    # is still copied), and never frees them, which costs nothing for imports that live as long as
    # the worker. Only what the daemon holds now is frozen: a task's objects, the run's model
    # unpickled in a worker included, are collected as before.
    import gc

    gc.freeze()
    from pyspark.daemon import manager

    manager()
