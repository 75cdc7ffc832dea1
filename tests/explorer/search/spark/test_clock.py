"""The tasks' per-phase CPU clock (spark/clock.py): off, nothing is written; on, one line per phase,
which bench/bench_spark_clock.py sums (docs/spark.md, "Issue 24, ninth round")."""

from __future__ import annotations

import subprocess
import sys

from isrcheck.explorer.search.spark import clock

from tests.fixtures.paths import ROOT


def test_off_the_clock_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(clock, "PATH", None)
    clk = clock.start("merge", 9, 1)
    assert clk is clock.OFF
    clk.mark("merge")
    clk.close()
    assert list(tmp_path.iterdir()) == []


def test_on_each_phase_is_a_line_and_the_bench_sums_them(tmp_path, monkeypatch):
    path = tmp_path / "clock.tsv"
    monkeypatch.setattr(clock, "PATH", str(path))
    for index in (0, 1):
        clk = clock.start("expand", 12, index)
        sum(i * i for i in range(20_000))  # some CPU to count
        clk.mark("expand (C)")
        clk.mark("send")
        clk.close()
    lines = [line.split("\t") for line in path.read_text().splitlines()]
    phases = ("before the task (fork, PySpark)", "expand (C)", "send")
    assert [(s, lv, i, ph) for s, lv, i, ph, _, _ in lines] == [
        ("expand", "12", str(i), ph) for i in (0, 1) for ph in phases]
    assert all(float(seconds) >= 0 for *_, seconds, _ in lines)
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_spark_clock.py"), str(path)],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("expand: ") and "in 2 tasks, 1 worker processes" in out
    total = sum(float(seconds) for *_, seconds, _ in lines)
    assert f"all marked: {total:.2f} s" in out


def _bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "bench_spark_clock.py"), *args],
                          capture_output=True, text=True)


def test_the_bench_counts_every_task_run_even_those_without_a_level_or_partition(tmp_path, monkeypatch):
    # the parent copy's tasks all say level -1, partition -1; a task run again in the same worker is
    # a second task: counted by their first lines, not by (level, partition, pid)
    path = tmp_path / "clock.tsv"
    monkeypatch.setattr(clock, "PATH", str(path))
    for _ in range(3):
        clk = clock.start("parents", -1, -1)
        clk.mark("copy")
        clk.close()
    out = _bench(str(path))
    assert out.returncode == 0, out.stderr
    assert "parents: " in out.stdout and "in 3 tasks, 1 worker processes" in out.stdout


def test_the_bench_refuses_a_missing_file_and_a_line_cut_short_with_exit_2(tmp_path):
    missing = _bench(str(tmp_path / "none.tsv"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "cannot read" in missing.stderr and "ISRCHECK_SPARK_CLOCK" in missing.stderr
    cut = tmp_path / "cut.tsv"
    cut.write_text("merge\t3\t0\tmerge\t0.010000\t77\nmerge\t3\t1\tme")  # an append killed half way
    bad = _bench(str(cut))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "line 2" in bad.stderr and "not a line of the clock" in bad.stderr


class _Reports:
    def __init__(self):
        self.added: list[dict] = []

    def add(self, value: dict) -> None:
        self.added.append(value)


def test_a_task_that_finds_its_file_missing_still_writes_its_clock(tmp_path, monkeypatch):
    # an expansion without its kept states file and a merge without its kept array end early (the
    # level runs again through Spark): their CPU is counted, and not charged to the next task
    from isrcheck.explorer.search.spark import tasks

    path = tmp_path / "clock.tsv"
    monkeypatch.setattr(clock, "PATH", str(path))
    monkeypatch.setattr(tasks, "load_context", lambda payload: None)
    reports = _Reports()
    run = tasks.expand_partition(None, frozenset(), 2, reports, kept=(str(tmp_path), 3))
    assert list(run(0, iter([]))) == []
    run = tasks.merge_partition(None, 4, frozenset(), frozenset(), reports, use=(str(tmp_path), 3))
    assert list(run(1, iter([]))) == []
    assert [next(iter(r.values()))["missing"] for r in reports.added] == [1, 1]
    lines = [line.split("\t")[:4] for line in path.read_text().splitlines()]
    assert ["expand", "-1", "0", clock.FIRST] in lines and ["merge", "4", "1", clock.FIRST] in lines
