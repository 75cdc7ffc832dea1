"""Faults of the environment during a Spark run end with their documented status, one paragraph
naming the cause and the way on, and the statistics so far: the driver JVM out of memory is a
memory limit (exit 5); a checkpoint disk that fills up or turns read-only is a failed run (exit 7),
and the checkpoint it leaves resumes to the whole run's result. Faults are injected: a real
OutOfMemoryError in the driver JVM takes minutes and a full disk needs root for a small tmpfs."""

from __future__ import annotations

import errno
import json

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import RunFailed
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.search.spark import engine
from isrcheck.explorer.search.spark.faults import disk_fault, is_fault, jvm_out_of_memory

from isrcheck import check

CLASSIC = ["check", "classic", "--engine", "spark", "--master", "local[2]", "--quiet"]
PY4J_OOM = ("An error occurred while calling o412.collectAndServe.\n: java.lang.OutOfMemoryError: Java heap space\n"
            "\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)")


class FakePy4JError(Exception):
    """What PySpark raises for a failed JVM call (Py4JJavaError), reduced to its text."""


def test_faults_are_told_apart_from_other_errors():
    assert jvm_out_of_memory(FakePy4JError(PY4J_OOM)) and is_fault(FakePy4JError(PY4J_OOM))
    assert disk_fault(OSError(errno.ENOSPC, "No space left on device")) == "No space left on device"
    assert disk_fault(OSError(errno.EROFS, "Read-only file system")) == "Read-only file system"
    executor = FakePy4JError("Job aborted ... OSError: [Errno 28] No space left on device: '/ck/level-000004.tmp/p0'")
    assert disk_fault(executor) == "No space left on device"
    try:
        try:
            raise OSError(errno.EROFS, "Read-only file system")
        except OSError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        assert disk_fault(outer) == "Read-only file system"
    for other in (ValueError("x"), OSError(errno.ENOENT, "No such file"), FakePy4JError("Connection refused")):
        assert not is_fault(other)


def fail_at_level(monkeypatch, level: int, error: BaseException) -> None:
    step = engine._Run.step

    def failing(self):
        if self.level + 1 == level:
            raise error
        return step(self)

    monkeypatch.setattr(engine._Run, "step", failing)


@pytest.mark.spark
def test_the_driver_jvm_out_of_memory_is_a_memory_limit_with_the_statistics_so_far(spark, capsys, monkeypatch):
    fail_at_level(monkeypatch, 6, FakePy4JError(PY4J_OOM))
    code = main([*CLASSIC, "--json"])
    out, err = capsys.readouterr()
    assert code == 5, err
    summary = json.loads(out)
    assert summary["limit"] == "memory" and not summary["complete"] and summary["violations"] == []
    assert summary["depth"] == 5 and summary["distinct_states"] > 0 and summary["stats"]["frontier_left"] > 0
    assert "Traceback" not in err

    assert main(CLASSIC) == 5
    out, err = capsys.readouterr()
    assert "stopped at the memory limit" in out
    assert "the Spark driver's JVM ran out of heap (java.lang.OutOfMemoryError) while computing level 6" in out
    assert "--driver-memory" in out and "Traceback" not in err


@pytest.mark.spark
@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS])
def test_a_checkpoint_disk_that_fails_is_exit_7_and_the_checkpoint_resumes(spark, capsys, monkeypatch, tmp_path,
                                                                          error):
    whole = main([*CLASSIC, "--json"])
    reference = json.loads(capsys.readouterr().out)
    assert whole == 0
    ck = tmp_path / "ck"
    text = "No space left on device" if error == errno.ENOSPC else "Read-only file system"
    fail_at_level(monkeypatch, 7, OSError(error, text, str(ck / "level-000007.tmp")))
    code = main([*CLASSIC, "--checkpoint", str(ck), "--json"])
    out, err = capsys.readouterr()
    assert code == 7, err
    so_far = json.loads(out)  # --json: the statistics so far are still one JSON document
    assert so_far["depth"] == 6 and not so_far["complete"] and so_far["frontier_left"] > 0
    assert "Model checking" in err and "6 complete level(s)" in err  # the statistics so far
    assert f"the run failed: writing to the checkpoint folder {str(ck)!r} failed at level 7 ({text})" in err
    assert "run the same command with --resume" in err and "Traceback" not in err
    assert not list(ck.glob("level-*.tmp"))  # the half-written level is gone

    monkeypatch.undo()  # the disk has room again
    assert main([*CLASSIC, "--checkpoint", str(ck), "--resume", "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    for key in ("distinct_states", "generated_states", "depth", "complete"):
        assert resumed[key] == reference[key], key


@pytest.mark.spark
def test_from_python_a_failed_disk_is_run_failed_with_the_result_so_far(spark, monkeypatch, tmp_path):
    fail_at_level(monkeypatch, 4, OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(RunFailed) as caught:
        check(build_model("classic", {}), engine="spark", master="local[2]", checkpoint=str(tmp_path / "ck"))
    assert caught.value.result.depth == 3 and caught.value.result.stats["failed_level"] == 4
