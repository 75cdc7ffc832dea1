"""Documented commands and machine-readable output: scenario runs with progress on, the JSON
summaries carry a schema version and the same fields everywhere, trace files are byte-reproducible."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from isrcheck.explorer.cli.main import main

from tests.fixtures.paths import ROOT

RACY = str(ROOT / "tests" / "fixtures" / "racy_lock.py")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_scenario_runs_with_progress_on(capsys):
    code, out, err = run(capsys, "scenario", "K1", "--progress-interval", "0.001")
    assert code == 0 and "(as the catalogue says)" in out and "Traceback" not in err


def test_scenario_json_gives_the_verdict_and_the_summary(capsys):
    code, out, _ = run(capsys, "scenario", "K1", "--json", "--quiet")
    data = json.loads(out)
    assert code == 0
    assert data["schema_version"] == 1 and data["scenario"] == "K1"
    assert (data["expected"], data["got"], data["matched"]) == ("violated", "violated", True)
    assert data["expected_trace_length"] == data["got_trace_length"] == 10
    summary = data["summary"]
    assert summary["schema_version"] == 1 and summary["violations"][0]["property"] == "StrongIsr"
    assert summary["distinct_states"] > 0 and summary["options"]["generation"] == "truncate-to-hw"


def test_scenarios_json_lists_the_catalogue(capsys):
    code, out, _ = run(capsys, "scenarios", "--json")
    data = json.loads(out)
    assert code == 0 and data["schema_version"] == 1
    k1 = next(s for s in data["scenarios"] if s["id"] == "K1")
    assert k1["expect"] == "violated" and k1["trace_length"] == 10 and k1["command"].startswith("isrcheck check")


def test_check_json_has_a_schema_version_and_the_detail_in_the_trace_meta(capsys, tmp_path):
    trace_file = tmp_path / "cex.itf.json"
    code, out, err = run(capsys, "check", RACY, "--json", "--quiet", "--trace-json", str(trace_file))
    data = json.loads(out)  # stdout is only the JSON; "Wrote ..." goes to stderr
    assert code == 1 and data["schema_version"] == 1 and f"Wrote {trace_file}" in err
    violation = data["violations"][0]
    assert violation["detail"] == "both processes are in the critical section"
    in_json, in_file = violation["trace"]["#meta"], json.loads(trace_file.read_text())["#meta"]
    assert in_json["detail"] == in_file["detail"] == violation["detail"]
    assert in_json["schema_version"] == in_file["schema_version"] == 1
    assert os.path.isabs(in_json["model"].split(":")[0])


def _trace_bytes(tmp_path: Path, seed: str) -> bytes:
    target = tmp_path / f"seed{seed}.itf.json"
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "isrcheck", "scenario", "K1", "--quiet", "--trace-json",
                           str(target)], cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return target.read_bytes()


def test_trace_files_are_byte_identical_under_any_hash_seed(tmp_path):
    first, second = _trace_bytes(tmp_path, "1"), _trace_bytes(tmp_path, "2")
    assert first == second
    data = json.loads(first)
    assert data["vars"] == [k for k in data["states"][0] if k != "#meta"]  # the model's field order
