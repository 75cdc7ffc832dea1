"""The command line as a user meets it: exit codes, traces, replay, regressions, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.model.kraft import KRAFT_GENERATIONS

from tests.fixtures.classic import GENERATIONS
from tests.fixtures.paths import ROOT

RACY = str(ROOT / "tests" / "fixtures" / "racy_lock.py")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_planted_bug_gives_shortest_trace_exit_1_and_replays(capsys, tmp_path):
    trace_file, regression = tmp_path / "racy.itf.json", tmp_path / "test_racy_regression.py"
    code, out, _ = run(capsys, "check", RACY, "--trace-json", str(trace_file), "--regression", str(regression))
    assert code == 1
    assert "MutualExclusion (invariant) violated in a trace of 5 states" in out
    assert "State 3: Check(process=1)" in out and "pc.p1: idle -> checked" in out
    assert "=> MutualExclusion fails here: both processes are in the critical section" in out
    data = json.loads(trace_file.read_text())
    assert data["#meta"]["property"] == "MutualExclusion" and len(data["states"]) == 5
    assert data["states"][2]["#meta"]["action"] == "Check(process=1)"

    code, out, _ = run(capsys, "replay", str(trace_file), "--model", RACY)
    assert code == 1 and "=> MutualExclusion fails at state 5" in out
    assert f"Replaying against model {RACY} (given with --model" in out

    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(regression)],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_fixed_model_passes_and_model_options_come_from_the_factory(capsys):
    code, out, _ = run(capsys, "check", RACY, "--fixed")
    assert code == 0 and "Model checking complete: no violation." in out
    assert "5 distinct states" in out


def test_replay_fails_loudly_where_the_model_diverges(capsys, tmp_path):
    trace_file = tmp_path / "t.json"
    assert run(capsys, "check", RACY, "--trace-json", str(trace_file))[0] == 1
    data = json.loads(trace_file.read_text())
    data["#meta"]["options"] = {"fixed": True}  # the fixed lock raises the flag at Check
    trace_file.write_text(json.dumps(data))
    code, _, err = run(capsys, "replay", str(trace_file), "--model", RACY)
    assert code == 3
    assert "state 2: Check(process=0) leads elsewhere than recorded: flag.p0: recorded 0, model gives 1" in err

    data["states"][2]["#meta"]["action"] = "Teleport(process=1)"
    data["#meta"]["options"] = {}
    trace_file.write_text(json.dumps(data))
    code, _, err = run(capsys, "replay", str(trace_file), "--model", RACY)
    assert code == 3 and "Teleport(process=1) is not enabled; enabled actions: " in err


@pytest.mark.parametrize("content,message", [
    ("{not json", "is not valid JSON"),
    ('{"states": []}', "is not an ITF trace"),
    ('{"#meta": {}, "states": [{"#meta": {"action": null}}]}', "does not say which model"),
])
def test_corrupt_trace_files_are_refused_with_exit_2(capsys, tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("argv,message", [
    (["check", "no-such-model"], "unknown model 'no-such-model'"),
    (["check", "missing/file.py"], "does not exist"),
    (["check", RACY, "--bogus", "1"], "unrecognised argument(s) --bogus 1; model"),
    (["check", RACY, "--max-depth", "x"], "--max-depth/--depth: invalid int value"),
    (["check", RACY, "--max-depth", "0"], "max_depth must be a positive integer"),
    (["check", RACY, "--invariant", "Nope"], "unknown property 'Nope'; this model has: MutualExclusion"),
    (["check", RACY, "--checkpoint", "/tmp/x"], "--engine spark only"),
    (["check", RACY + ":nope"], "has no function 'nope'"),
    (["frobnicate"], "unknown command 'frobnicate'"),
])
def test_bad_input_is_one_clear_paragraph_and_exit_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_model_file_that_raises_on_import_is_named(capsys, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import nonexistent_module_xyz\n")
    code, _, err = run(capsys, "check", str(broken))
    assert code == 2 and "failed to load: ModuleNotFoundError" in err


def test_json_summary_is_machine_readable(capsys):
    code, out, _ = run(capsys, "check", RACY, "--json", "--quiet")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["violations"][0]["length"] == 5
    assert data["distinct_states"] == 9 and data["options"] == {"fixed": False}


def test_full_flag_prints_whole_states(capsys):
    _, out, _ = run(capsys, "check", RACY, "--full", "--quiet")
    assert out.count("flag.p1 =") == 5


def test_progress_lines_on_a_non_terminal(tmp_path):
    counters = tmp_path / "counters.py"
    counters.write_text(
        "from tests.fixtures.models import Counters\n"
        "def make_model(*, n: int = 3, limit: int = 60):\n    return Counters(n, limit)\n")
    proc = subprocess.run([sys.executable, "-m", "isrcheck", "check", str(counters), "--progress-interval", "0.05"],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "states/s" in ln]
    assert lines and "distinct" in lines[0] and "frontier" in lines[0] and "\r" not in proc.stderr


def test_interrupted_run_keeps_its_statistics(tmp_path):
    counters = tmp_path / "counters.py"
    counters.write_text(
        "from tests.fixtures.models import Counters\n"
        "def make_model(*, n: int = 4, limit: int = 200):\n    return Counters(n, limit)\n")
    argv = [sys.executable, "-m", "isrcheck", "check", str(counters), "--progress-interval", "0.2"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait for the first progress line: the search is running
        line = proc.stderr.readline()
        if "states/s" in line:
            break
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Model checking interrupted" in out and "distinct states found" in out


def test_models_command_lists_the_registry(capsys):
    code, out, _ = run(capsys, "models")
    assert code == 0
    assert "classic  (isrcheck.model.factory:make_model)" in out
    generations = ",".join([*GENERATIONS, *KRAFT_GENERATIONS])  # the declared lists, in their order
    assert f"--generation {{{generations}}}  (default: kip320)" in out


def test_properties_command_lists_kinds_and_opt_in(capsys):
    code, out, _ = run(capsys, "properties", "classic")
    assert code == 0
    assert "StrongIsr  [always]\n" in out
    assert "LeaderInIsrLiteral  [always]  (opt-in: --invariant LeaderInIsrLiteral)" in out
    assert "RecordCommitted  [sometimes]" in out
