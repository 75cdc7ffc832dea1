"""Ctrl-C during a Spark run, as a terminal sends it (SIGINT to the whole foreground process group):
one paragraph and the statistics of the completed levels, the checkpoint kept, exit 130; no Py4J
or Python tracebacks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.fixtures.paths import ROOT

# A subprocess with its own Spark session: ~25-40 s. CI runs it, the fast loop does not.
pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_ctrl_c_prints_one_paragraph_and_keeps_the_checkpoint(tmp_path):
    ckpt = tmp_path / "ckpt"
    cmd = [sys.executable, "-m", "isrcheck", "check", "classic", "--generation", "kip320", "--replicas", "3",
           "--engine", "spark", "--master", "local[2]", "--driver-threshold", "0", "--partitions", "4",
           "--checkpoint", str(ckpt)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err: list[str] = []
    out: list[str] = []
    readers = [threading.Thread(target=lambda s=s, into=into: into.extend(s), daemon=True)
               for s, into in ((proc.stderr, err), (proc.stdout, out))]
    for reader in readers:
        reader.start()
    try:
        deadline = time.monotonic() + 240
        while sum(line.startswith("level") for line in err) < 4:
            if proc.poll() is not None:
                pytest.fail("the run ended before it could be interrupted:\n" + "".join(err)[-3000:])
            if time.monotonic() > deadline:
                pytest.fail("the run did not reach level 4 in time")
            time.sleep(0.02)
        time.sleep(0.3)  # into the next level's Spark jobs (each level on executors takes 0.5 s or more)
        before = len(err)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole process group
        status = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    for reader in readers:
        reader.join(timeout=10)
    stderr, stdout = "".join(err), "".join(out)
    assert status == 130, stderr[-3000:]
    after = "".join(err[before:])  # what the interrupt printed (Spark's start-up warnings are not ours)
    for noise in ("Traceback", "py4j", "Py4J", "Exception", "KeyboardInterrupt", "WARN TaskSetManager"):
        assert noise not in after, after[-3000:]
    paragraph = [line for line in err if line.startswith("Interrupted:")]
    assert len(paragraph) == 1, stderr[-3000:]
    manifest = json.loads((ckpt / "manifest.json").read_text())
    completed = manifest["last_level"]
    assert completed >= 4
    assert f"the {completed} complete levels" in paragraph[0]
    assert f"The checkpoint in {ckpt} keeps them" in paragraph[0] and "--resume" in paragraph[0]
    # The statistics so far: the distinct count of the completed levels, as the checkpoint records it.
    assert "Model checking interrupted" in stdout
    assert f"{manifest['run']['distinct']:,} distinct states found" in stdout
    # Nothing half written: every level the manifest names is a whole folder, no temporary left.
    assert not list(ckpt.glob("*.tmp"))
