"""The pytest plugin (isrcheck/pytest_plugin.py) and ``isrcheck.assert_holds``, as a user meets them:
pytest runs in a subprocess on test files written to a temporary folder, with the plugin loaded
through its installed ``pytest11`` entry point (no ``-p`` option), as in a user's project.

The docs' pytest example (docs/properties-own.md) is one of those files, taken from the page as it
is, beside the properties file it imports.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from tests.fixtures.paths import ROOT

DOC = ROOT / "docs" / "properties-own.md"
CONSUMER_READ = ROOT / "docs" / "examples" / "consumer_read.py"

FAILING = '''
import isrcheck
from consumer_read import ConsumerReadsBelowLeaderHw


def test_leader_hw():
    isrcheck.assert_holds("classic", options={"consumer_reads": "leader"},
                          extra_properties=[ConsumerReadsBelowLeaderHw])
'''


def _pytest(folder: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """pytest in ``folder`` as a user runs it: a fresh process, the plugin found by its entry point."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CI", "HYPOTHESIS_PROFILE")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args], cwd=folder,
                          env={**base, **(env or {})}, capture_output=True, text=True, timeout=600)


def _project(tmp_path: Path, **files: str) -> Path:
    (tmp_path / "consumer_read.py").write_text(CONSUMER_READ.read_text())
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_plugin_is_installed_as_a_pytest11_entry_point(tmp_path):
    found = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert found.get("isrcheck") == "isrcheck.pytest_plugin"
    helped = _pytest(tmp_path, "--help")
    for option in ("--isrcheck-engine", "--isrcheck-workers", "--isrcheck-max-depth", "--isrcheck-artifacts"):
        assert option in helped.stdout


def test_a_failing_check_fails_the_test_with_the_trace_and_its_artifacts(tmp_path):
    project = _project(tmp_path, **{"test_leader.py": FAILING})
    proc = _pytest(project, "--isrcheck-artifacts", "out")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "ConsumerReadsBelowLeaderHw (transition property) violated in a trace of 9 states" in output
    assert "State 9: ConsumerFetch(replica=1, offset=0, record_id=0)" in output
    assert "Violation(" not in output  # the rendered trace, not a repr
    itf = Path(re.search(r"ITF trace: (\S+)", output).group(1))
    html = Path(re.search(r"HTML report: (\S+)", output).group(1))
    assert itf.parent == html.parent == (project / "out" / "test_leader.py_test_leader_hw").resolve()
    trace = json.loads(itf.read_text())
    assert len(trace["states"]) == 9 and trace["#meta"]["property"] == "ConsumerReadsBelowLeaderHw"
    assert html.read_text().lstrip().lower().startswith("<!doctype html")
    named = json.loads(itf.read_text())["#meta"]["properties_file"]  # recorded relative to the artifact
    refused = subprocess.run([sys.executable, "-m", "isrcheck", "replay", str(itf)], capture_output=True, text=True,
                             timeout=300, cwd=tmp_path)  # named by the trace only: never imported on its word
    assert refused.returncode == 2 and "--properties" in refused.stderr, refused.stdout + refused.stderr
    replayed = subprocess.run([sys.executable, "-m", "isrcheck", "replay", str(itf), "--properties",
                               str((itf.parent / named).resolve())], capture_output=True, text=True,
                              timeout=300, cwd=tmp_path)
    assert replayed.returncode == 1 and "ConsumerReadsBelowLeaderHw fails at state 9" in replayed.stdout, \
        replayed.stdout + replayed.stderr


def test_the_options_reach_assert_holds(tmp_path):
    project = _project(tmp_path, **{"test_leader.py": FAILING})
    shallow = _pytest(project, "--isrcheck-max-depth", "8")  # the violation is at depth 9
    assert shallow.returncode == 0, shallow.stdout + shallow.stderr
    parallel = _pytest(project, "--isrcheck-workers", "2")
    assert parallel.returncode == 1 and "violated in a trace of 9 states" in parallel.stdout
    bad = _pytest(project, "--isrcheck-workers", "-1")
    assert bad.returncode == 4 and "--isrcheck-workers '-1': must be at least 0" in bad.stderr
    engine = _pytest(project, "--isrcheck-engine", "nosuch")
    assert engine.returncode == 4 and "invalid choice" in engine.stderr


PROFILE = '''
from hypothesis import settings


def test_profile():
    print("PROFILE", settings.get_current_profile_name(), settings().derandomize, settings().database)
'''


def test_under_ci_users_hypothesis_tests_are_derandomized_unless_a_profile_was_chosen(tmp_path):
    project = _project(tmp_path, **{"test_profile.py": PROFILE})
    under_ci = _pytest(project, "-s", env={"CI": "true"})
    # Hypothesis's own "ci" profile where the installed release loads one under CI, else the plugin's
    assert re.search(r"PROFILE (ci|isrcheck-ci) True None", under_ci.stdout), under_ci.stdout + under_ci.stderr
    outside = _pytest(project, "-s")
    assert "PROFILE default False" in outside.stdout
    chosen = _pytest(project, "-s", "--hypothesis-profile", "default", env={"CI": "true"})
    assert "PROFILE default False" in chosen.stdout


def test_the_plugins_profile_is_derandomized_and_loaded_over_the_default_only():
    probe = ("from hypothesis import settings\n"
             "from isrcheck.pytest_plugin import ci_profile\n"
             "ci_profile(); print(settings.get_current_profile_name(), settings().derandomize, settings().database)\n"
             "settings.register_profile('mine', max_examples=7); settings.load_profile('mine')\n"
             "ci_profile(); print(settings.get_current_profile_name())\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")})
    assert proc.stdout.split("\n")[:2] == ["isrcheck-ci True None", "mine"], proc.stdout + proc.stderr


def test_the_docs_pytest_example_runs_as_the_page_says(tmp_path):
    blocks = re.findall(r"```python\n(# test_consumer_read.py\n.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1, "docs/properties-own.md shows one pytest example, headed # test_consumer_read.py"
    project = _project(tmp_path, **{"test_consumer_read.py": blocks[0]})
    proc = _pytest(project, "test_consumer_read.py")
    assert proc.returncode == 0 and "2 passed" in proc.stdout, proc.stdout + proc.stderr
    shown = re.search(r"```python\n(from isrcheck import transition\n.*?)```", DOC.read_text(), re.S).group(1)
    assert shown in CONSUMER_READ.read_text(), "the page shows the example file's property as it is"
