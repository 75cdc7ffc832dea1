"""A disk that fills up (or turns read-only) while a run is on: every output file, the state graph
and the HTML page included, goes through one mechanism; what could not be written is reported in
one paragraph; the verdict's exit status stands. Faults injected as the OSError a full disk gives."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from isrcheck.explorer import outputs
from isrcheck.explorer.cli.main import main

from tests.fixtures.paths import FIXTURES

RACY = str(FIXTURES / "racy_lock.py")
REAL_WRITE = outputs.write_atomically


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def disk_full_for(monkeypatch, *names: str) -> list[str]:
    """Writes to files whose name is in ``names`` (all when none) fail with ENOSPC; returns the
    names of the files attempted, in order."""
    attempted: list[str] = []

    def write(path, data):
        attempted.append(Path(path).name)
        if not names or Path(path).name in names:
            raise OSError(errno.ENOSPC, "No space left on device")
        return REAL_WRITE(path, data)

    monkeypatch.setattr(outputs, "write_atomically", write)
    return attempted


def test_a_passing_run_keeps_exit_0_and_reports_the_graph_and_page_it_could_not_write(capsys, tmp_path,
                                                                                      monkeypatch):
    attempted = disk_full_for(monkeypatch)
    code, out, err = run(capsys, "check", RACY, "--fixed", "--quiet", "--graph", str(tmp_path / "g.dot"),
                         "--html", str(tmp_path / "p.html"))
    assert code == 0 and "Model checking complete: no violation." in out
    assert attempted == ["g.dot", "p.html"]  # the page is still attempted after the graph failed
    assert err.count("could not be written") == 1  # one report
    assert "2 output files could not be written" in err
    assert f"could not write --graph {str(tmp_path / 'g.dot')!r} (No space left on device)" in err
    assert f"could not write --html {str(tmp_path / 'p.html')!r} (No space left on device)" in err
    assert "exit status is its verdict's" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing half-written


def test_only_the_graph_fails_the_page_is_written(capsys, tmp_path, monkeypatch):
    disk_full_for(monkeypatch, "g.graphml")
    code, out, err = run(capsys, "check", RACY, "--fixed", "--quiet", "--graph", str(tmp_path / "g.graphml"),
                         "--html", str(tmp_path / "p.html"))
    assert code == 0
    assert f"Wrote {tmp_path / 'p.html'}" in out and (tmp_path / "p.html").exists()
    assert "1 output file could not be written: could not write --graph" in err
    assert not (tmp_path / "g.graphml").exists()


def test_two_violations_and_little_space_a_missing_itf_file_is_reported(capsys, tmp_path, monkeypatch):
    disk_full_for(monkeypatch, "cex-StrongIsr.itf.json")
    code, out, err = run(capsys, "check", "classic", "--generation", "truncate-to-hw", "--continue", "--quiet",
                         "--workers", "1", "--trace-json", str(tmp_path / "cex.itf.json"))
    assert code == 1 and "2 violation(s)" in out
    assert f"Wrote {tmp_path / 'cex-WeakIsr.itf.json'}" in out
    assert json.loads((tmp_path / "cex-WeakIsr.itf.json").read_text())["#meta"]["property"] == "WeakIsr"
    assert "1 output file could not be written: could not write --trace-json" in err
    assert "cex-StrongIsr.itf.json" in err and not (tmp_path / "cex-StrongIsr.itf.json").exists()


def test_scenario_html_goes_through_the_same_report(capsys, tmp_path, monkeypatch):
    disk_full_for(monkeypatch)
    code, out, err = run(capsys, "scenario", "K1", "--quiet", "--html", str(tmp_path / "k1.html"),
                         "--trace-json", str(tmp_path / "k1.itf.json"))
    assert code == 0 and "as the catalogue says" in out
    assert "2 output files could not be written" in err and "--html" in err and "--trace-json" in err


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS])
def test_show_whose_page_cannot_be_written_exits_7(capsys, tmp_path, monkeypatch, error):
    trace = tmp_path / "racy.itf.json"
    assert main(["check", RACY, "--quiet", "--trace-json", str(trace)]) == 1
    capsys.readouterr()

    def write(path, data):
        raise OSError(error, "No space left on device" if error == errno.ENOSPC else "Read-only file system")

    monkeypatch.setattr(outputs, "write_atomically", write)
    code, _, err = run(capsys, "show", str(trace), "--html", str(tmp_path / "p.html"))
    assert code == 7 and "the run failed: could not write the HTML page" in err
    assert "Free space on that disk (or name another folder)" in err and "Traceback" not in err


def test_simulate_and_bmc_outputs_go_through_the_same_report(capsys, tmp_path, monkeypatch):
    disk_full_for(monkeypatch)
    code, out, err = run(capsys, "simulate", RACY, "--depth", "10", "--behaviours", "500", "--seed", "1",
                         "--trace-json", str(tmp_path / "sim.itf.json"))
    assert code == 1 and "MutualExclusion" in out  # the verdict's status
    assert "1 output file could not be written: could not write --trace-json" in err and "Traceback" not in err
    code, out, err = run(capsys, "bmc", "classic", "--generation", "truncate-to-hw", "--depth", "10", "--invariant",
                         "WeakIsr", "--quiet", "--trace-json", str(tmp_path / "b.itf.json"), "--regression",
                         str(tmp_path / "test_b.py"))
    assert code == 1 and "WeakIsr (invariant) violated" in out
    assert "2 output files could not be written" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())
