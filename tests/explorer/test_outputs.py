"""Output files never destroy anything and never lose a result: every path is checked before the
search (exit 2), symlinks are written through, nothing that is not a regular file is replaced,
no folder is created, a write that fails at the end still prints the result, modes follow the umask."""

from __future__ import annotations

import errno
import importlib
import json
import os
import stat

import pytest
from isrcheck.explorer import outputs
from isrcheck.explorer.cli.main import main

from tests.fixtures.paths import FIXTURES

RACY = str(FIXTURES / "racy_lock.py")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def search_must_not_run(monkeypatch):
    """Any search started fails the test: the refusal must come before it."""
    check_module = importlib.import_module("isrcheck.explorer.check")  # the module, not the function

    def refuse(*args, **kwargs):
        raise AssertionError("the search started although an output path was bad")

    monkeypatch.setattr(check_module, "check", refuse)


def test_a_fifo_target_is_refused_and_kept(capsys, tmp_path, search_must_not_run):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "check", RACY, "--trace-json", str(fifo), "--quiet")
    assert code == 2 and "not a regular file" in err and "Traceback" not in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("option", ["--trace-json", "--regression"])
def test_a_folder_target_is_refused_before_the_search(capsys, tmp_path, search_must_not_run, option):
    code, _, err = run(capsys, "check", RACY, option, str(tmp_path), "--quiet")
    assert code == 2 and f"{option} {str(tmp_path)!r} is a folder" in err


def test_a_missing_folder_is_refused_not_created(capsys, tmp_path, search_must_not_run):
    target = tmp_path / "no" / "such" / "cex.itf.json"
    code, _, err = run(capsys, "check", RACY, "--trace-json", str(target), "--quiet")
    assert code == 2 and "does not exist; create it first" in err
    assert not (tmp_path / "no").exists()


def test_a_folder_where_nothing_can_be_created_is_refused(capsys, search_must_not_run):
    code, _, err = run(capsys, "check", RACY, "--regression", "/proc/test_cex.py", "--quiet")
    assert code == 2 and "files cannot be created in '/proc'" in err


def test_a_checkpoint_that_is_a_file_is_refused(capsys, tmp_path, search_must_not_run):
    existing = tmp_path / "file"
    existing.write_text("x")
    code, _, err = run(capsys, "check", RACY, "--engine", "spark", "--checkpoint", str(existing), "--quiet")
    assert code == 2 and "is a file, not a folder" in err
    code, _, err = run(capsys, "check", RACY, "--engine", "spark", "--checkpoint", "/proc/run", "--quiet")
    assert code == 2 and "cannot write --checkpoint" in err


def test_a_symlink_is_written_through_and_stays_a_link(capsys, tmp_path):
    real = tmp_path / "elsewhere" / "real.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "cex.itf.json"
    link.symlink_to(real)
    code, out, _ = run(capsys, "check", RACY, "--trace-json", str(link), "--quiet")
    assert code == 1 and f"Wrote {link}" in out
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text())["#meta"]["property"] == "MutualExclusion"


def test_a_write_that_fails_at_the_end_still_prints_the_result(capsys, tmp_path, monkeypatch):
    def full_disk(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(outputs, "write_atomically", full_disk)
    code, out, err = run(capsys, "check", RACY, "--trace-json", str(tmp_path / "cex.itf.json"), "--regression",
                         str(tmp_path / "test_cex.py"), "--quiet")
    assert code == 1  # the verdict's status, not a crash
    assert "MutualExclusion (invariant) violated in a trace of 5 states" in out and "State 5:" in out
    assert "could not write --trace-json" in err and "could not write --regression" in err
    assert "No space left on device" in err and "Traceback" not in err


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_file_modes_follow_the_umask(capsys, tmp_path, umask):
    old = os.umask(umask)
    try:
        run(capsys, "check", RACY, "--trace-json", str(tmp_path / "cex.itf.json"), "--regression",
            str(tmp_path / "test_cex.py"), "--quiet")
    finally:
        os.umask(old)
    for name in ("cex.itf.json", "test_cex.py"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o666 & ~umask, name


def test_write_atomically_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "out.json"
    outputs.write_atomically(target, "{}\n")
    outputs.write_atomically(target, "[]\n")
    assert target.read_text() == "[]\n" and [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_scenario_trace_json_is_checked_before_the_run(capsys, tmp_path):
    code, out, err = run(capsys, "scenario", "K1", "--trace-json", str(tmp_path), "--quiet")
    assert code == 2 and "is a folder" in err and "State 1" not in out
