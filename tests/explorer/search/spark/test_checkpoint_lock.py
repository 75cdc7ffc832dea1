"""One run at a time on a checkpoint folder (lock.py): a folder a live run holds is refused as in
use, naming its host and pid, both for a new run and for --resume (exit 2, never advising to delete
anything); the lock of a SIGKILL'd run is gone with it (an flock), so the next run takes the folder
over; of several runs started together on one new folder exactly one gets it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.search.spark.checkpoint import Checkpoint

from isrcheck import UserError, check
from tests.explorer.search.spark.helpers import summary
from tests.fixtures.models import Counters
from tests.fixtures.paths import ROOT

OPTIONS = dict(stop_at_first=False, driver_threshold=0, partitions=3)


def last_level(ckpt):
    try:
        return json.loads((ckpt / "manifest.json").read_text())["last_level"]
    except (OSError, ValueError):  # not written yet (or being replaced)
        return 0


def spawn(script_text, tmp_path, name="run.py"):
    script = tmp_path / name
    script.write_text(textwrap.dedent(script_text))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, str(script)], env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(condition, proc, what):
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if condition():
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended before {what}: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


@pytest.mark.spark
def test_a_live_run_holds_its_folder_and_a_killed_one_does_not(spark, tmp_path, capsys):
    ckpt = tmp_path / "ckpt"
    proc = spawn(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from isrcheck import check
        from tests.fixtures.models import Counters
        check(Counters(4, 5, bug_at=9), engine="spark", master="local[1]", checkpoint={str(ckpt)!r},
              stop_at_first=False, driver_threshold=0, partitions=3)
    """, tmp_path)
    try:
        wait_for(lambda: last_level(ckpt) >= 3, proc, "level 3")
        owner = f"pid {proc.pid} on host {socket.gethostname()}"
        for resume in (True, False):
            with pytest.raises(UserError) as err:
                check(Counters(4, 5, bug_at=9), engine="spark", checkpoint=str(ckpt), resume=resume, **OPTIONS)
            text = str(err.value)
            assert "is in use by another run" in text and owner in text, text
            assert "delete" not in text.lower()
        # the command line: exit 2, one paragraph
        args = ["check", "classic", "--engine", "spark", "--checkpoint", str(ckpt), "--resume"]
        assert main(args) == 2
        assert "is in use by another run" in capsys.readouterr().err
        assert proc.poll() is None  # the live run was left alone
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # The killed run's host and pid are still in the lock file, but its flock died with it.
    assert f"pid={proc.pid}" in (ckpt / "lock").read_text()
    resumed = check(Counters(4, 5, bug_at=9), engine="spark", checkpoint=str(ckpt), resume=True, **OPTIONS)
    assert resumed.stats["resumed_from_level"] >= 3
    assert summary(resumed) == summary(check(Counters(4, 5, bug_at=9), engine="spark", **OPTIONS))
    assert (ckpt / "lock").read_text() == ""  # released: no owner named once the run has ended


def test_of_runs_started_together_on_a_new_folder_exactly_one_gets_it(tmp_path):
    ckpt = tmp_path / "new"
    go = tmp_path / "go"
    procs = [spawn(f"""
        import os, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from isrcheck.explorer.errors import UserError
        from isrcheck.explorer.search.spark.checkpoint import Checkpoint
        while not os.path.exists({str(go)!r}):
            time.sleep(0.001)
        ck = Checkpoint({str(ckpt)!r})
        try:
            ck.lock(create=True)
            ck.prepare_new()
            ck.write_manifest({{"identity": {{}}, "partitions": 2, "levels": [], "last_level": 0, "run": {{}}}})
            print("owner", flush=True)
            time.sleep(3)
        except UserError as exc:
            print("refused", exc, flush=True)
    """, tmp_path, f"start{i}.py") for i in range(4)]
    time.sleep(1.0)  # every process is waiting for the start
    go.touch()
    outs = [proc.communicate(timeout=120)[0].decode() for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), outs
    owners = [out for out in outs if out.startswith("owner")]
    refused = [out for out in outs if out.startswith("refused")]
    assert len(owners) == 1 and len(refused) == 3, outs
    assert all("is in use by another run" in out for out in refused), refused
    assert json.loads((ckpt / "manifest.json").read_text())["last_level"] == 0


def test_a_lock_held_by_another_process_names_it(tmp_path):
    ckpt = tmp_path / "held"
    ready = tmp_path / "ready"
    proc = spawn(f"""
        import os, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from isrcheck.explorer.search.spark.checkpoint import Checkpoint
        Checkpoint({str(ckpt)!r}).lock(create=True)
        open({str(ready)!r}, "w").close()
        time.sleep(60)
    """, tmp_path)
    try:
        wait_for(ready.exists, proc, "the lock")
        with pytest.raises(UserError, match=f"in use by another run \\(pid {proc.pid} on host "):
            Checkpoint(ckpt).lock(create=False)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        taken = Checkpoint(ckpt)
        taken.lock(create=False)  # the SIGKILL'd owner's lock went with it
        assert f"pid={os.getpid()}" in (ckpt / "lock").read_text()
        taken.unlock()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
