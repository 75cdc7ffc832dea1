"""A run on local-cluster[2,1,1024] loses an executor: one executor JVM is SIGKILLed once a level is
under way. With two executors every kept block has a copy on the other, so the run completes with
exactly the local engine's counts and traces; with one copy of each block (``replicas=1``, what the
engine did before) the loss cannot be survived and the run ends with ``LostExecutor`` (exit 6),
the statistics of its complete levels and the way on, never as a violation (exit 1)."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import EXIT_INTERNAL, LostWorker
from isrcheck.explorer.progress import Silent
from isrcheck.explorer.search.spark.lost import (
    LostExecutor,
    cause_line,
    executor_count,
    is_loss,
    lost_message,
)

from isrcheck import check
from tests.explorer.search.spark.helpers import summary
from tests.fixtures.executors import executor_pids
from tests.fixtures.models import Counters

# The cluster tests are marked spark and slow (separate executor JVMs take 10-30 s to start: CI runs
# them, the fast loop does not); the last two need no Spark.

# 6^4 = 1,296 states in 21 levels: enough levels after the kill for Spark to notice it mid-run
MODEL = dict(n=4, limit=6, bug_at=17)
OPTIONS = dict(stop_at_first=False, driver_threshold=0, partitions=4)


class KillAtLevel(Silent):
    """Progress that SIGKILLs one executor JVM of this process's cluster once level ``level`` is
    done, from a thread after ``delay`` seconds, so that the kill lands while the next level runs."""

    def __init__(self, level: int, delay: float = 0.3):
        super().__init__()
        self.level, self.delay = level, delay
        self.killed: list[int] = []
        self.thread: threading.Thread | None = None

    def message(self, text: str) -> None:
        if self.thread is None and text.startswith(f"level {self.level:>3} |"):
            self.thread = threading.Thread(target=self._kill, daemon=True)
            self.thread.start()

    def _kill(self) -> None:
        time.sleep(self.delay)
        pids = executor_pids()
        if pids:
            os.kill(pids[0], signal.SIGKILL)
            self.killed.append(pids[0])


def _wait_for_executors(sc, count: int = 2, timeout: float = 120.0) -> None:
    """The master starts a new executor for a killed one; each test wants two registered ones,
    since a level's blocks get their second copy only where there are two."""
    deadline = time.monotonic() + timeout
    while executor_count(sc) < count and time.monotonic() < deadline:
        time.sleep(0.5)
    assert executor_count(sc) >= count, "the cluster did not get its executors back"


def _kill_all_when_job(sc, job: int) -> threading.Thread:
    """SIGKILL every executor JVM of this process's cluster once Spark job ``job`` is running (or
    done): both copies of every block go at once."""

    def watch() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if any(j >= job for j in sc.statusTracker().getActiveJobsIds()) or sc.statusTracker().getJobInfo(job):
                for pid in executor_pids():
                    os.kill(pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.spark
@pytest.mark.slow
def test_a_run_survives_a_killed_executor(spark_cluster):
    _wait_for_executors(spark_cluster.sparkContext)
    model = Counters(**MODEL)
    local = check(model, engine="local", stop_at_first=False)
    killer = KillAtLevel(6)
    spark = check(model, engine="spark", progress=killer, **OPTIONS)
    killer.thread.join()
    assert killer.killed, "no executor JVM was found to kill"
    assert spark.complete
    assert summary(spark) == summary(local)
    assert spark.distinct_states == 6 ** 4
    assert [(v.property, len(v.trace)) for v in spark.violations] == [("SumBelowBug", 18)]


@pytest.mark.spark
@pytest.mark.slow
def test_one_copy_of_each_block_ends_with_status_6_and_the_statistics(spark_cluster, tmp_path):
    # the engine before (one copy): the control that shows the second copy is what saves a run
    _wait_for_executors(spark_cluster.sparkContext)
    killer = KillAtLevel(6, delay=0.0)
    with pytest.raises(LostExecutor) as caught:
        check(Counters(**MODEL), engine="spark", progress=killer, replicas=1, checkpoint=str(tmp_path), **OPTIONS)
    message = str(caught.value)
    assert killer.killed
    assert isinstance(caught.value, LostWorker)  # the CLI's exit status 6
    assert "Spark lost an executor" in message
    assert "complete level" in message and "distinct states" in message
    assert f"The checkpoint in {tmp_path} keeps the complete levels" in message and "--resume" in message
    # the complete levels are on disk, and nothing of the unfinished one
    assert not list(tmp_path.glob("level-*.tmp"))
    _wait_for_executors(spark_cluster.sparkContext)
    resumed = check(Counters(**MODEL), engine="spark", checkpoint=str(tmp_path), resume=True, **OPTIONS)
    assert resumed.distinct_states == 6 ** 4 and resumed.complete


@pytest.mark.spark
@pytest.mark.slow
def test_losing_every_executor_exits_6_with_the_statistics(spark_cluster, capsys):
    # Both copies of every block lost at once: the run cannot go on. The command line reuses the
    # active local-cluster session, so this is `isrcheck check` as a user runs it.
    sc = spark_cluster.sparkContext
    _wait_for_executors(sc)
    first = max(sc.statusTracker().getJobIdsForGroup(None) or [0]) + 1
    killer = _kill_all_when_job(sc, first + 8)
    status = main(["check", "classic", "--generation", "kip320", "--engine", "spark", "--driver-threshold", "0",
                   "--partitions", "4"])
    killer.join()
    out, err = capsys.readouterr()
    assert status == EXIT_INTERNAL, err[-3000:]
    assert "Spark lost an executor and could not recover the blocks" in err
    assert re.search(r"The run stopped after \d+ complete levels: [\d,]+ distinct states, [\d,]+ states generated, "
                     r"depth \d+; level \d+ was not finished", err)
    assert "run again with --checkpoint DIR" in err
    assert "Traceback" not in err
    assert "violation" not in out.lower()
    _wait_for_executors(sc)


def test_the_command_line_exits_6_with_the_paragraph(monkeypatch, capsys):
    # The exit status the CLI gives the exception; the loss itself is the test above.
    import isrcheck.explorer.search.spark.engine as engine

    def lose(*args, **kwargs):
        raise LostExecutor(lost_message(RuntimeError("ExecutorLostFailure (executor 1 exited)"), level=12,
                                        distinct=109030, generated=270325, depth=12, checkpoint=None))

    monkeypatch.setattr(engine, "run_spark", lose)
    status = main(["check", "classic", "--engine", "spark", "--master", "local[1]", "--quiet"])
    err = capsys.readouterr().err
    assert status == EXIT_INTERNAL
    assert "after 12 complete levels: 109,030 distinct states, 270,325 states generated, depth 12" in err
    assert "--checkpoint DIR" in err and "Traceback" not in err


def test_what_counts_as_a_lost_executor():
    assert is_loss(RuntimeError("Job aborted: Checkpoint block rdd_12_3 not found! Either the executor"))
    assert is_loss(RuntimeError("Lost task 0.0: ExecutorLostFailure (executor 1 exited)"))
    assert not is_loss(RuntimeError("PythonException: ZeroDivisionError: division by zero"))
    assert not is_loss(ValueError("a model's own error"))
    jvm = RuntimeError("An error occurred while calling o7.count.\n: org.apache.spark.SparkException: "
                       "[CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND] Checkpoint block rdd_83_1 not found!\n\tat org.apache")
    assert cause_line(jvm) == "[CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND] Checkpoint block rdd_83_1 not found!"
