"""Set-up and the tutorial: ./dev demo needs no Java (only the commands that run Spark install it,
and say so), and the tutorial's model code runs as printed."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.fixtures.paths import ROOT


def _fake_checkout(tmp_path: Path) -> tuple[Path, Path]:
    """The dev script beside a fake, already set-up .venv whose isrcheck records its calls, and a
    PATH with no java and an apt-get that records being called and fails."""
    repo, bin_dir = tmp_path / "repo", tmp_path / "bin"
    (repo / ".venv" / "bin").mkdir(parents=True)
    bin_dir.mkdir()
    shutil.copy(ROOT / "dev", repo / "dev")
    # The install stamp covers pyproject.toml and the C hot path's build inputs (dev's setup()).
    stamped = ("pyproject.toml", "setup.py", "model/native/_classic.c", "model/native/_isr.c",
               "explorer/search/parallel/_route.c", "explorer/search/spark/_blocks.c")
    (repo / "model" / "native").mkdir(parents=True)
    (repo / "explorer" / "search" / "parallel").mkdir(parents=True)
    (repo / "explorer" / "search" / "spark").mkdir(parents=True)
    for name in stamped:
        shutil.copy(ROOT / name, repo / name)
    digest = hashlib.sha256(b"".join((repo / name).read_bytes() for name in stamped)).hexdigest()[:16]
    (repo / ".venv" / ".isrcheck-installed").write_text(digest + "\n")
    for name, body in {
        ".venv/bin/python": 'echo "python $*" >> "$LOG"',
        ".venv/bin/isrcheck": 'echo "isrcheck $*" >> "$LOG"; case "$*" in *kip101*) exit 1;; esac',
    }.items():
        (repo / name).write_text(f"#!/bin/bash\n{body}\n")
        (repo / name).chmod(0o755)
    (bin_dir / "apt-get").write_text('#!/bin/bash\necho "apt-get $*" >> "$LOG"\nexit 1\n')
    (bin_dir / "apt-get").chmod(0o755)
    for tool in ("bash", "dirname", "sha256sum", "cut", "cat"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    return repo, bin_dir


def test_dev_demo_runs_without_java_and_the_tests_say_they_need_it(tmp_path):
    repo, bin_dir = _fake_checkout(tmp_path)
    log = tmp_path / "calls.log"
    env = {"PATH": str(bin_dir), "LOG": str(log), "HOME": str(tmp_path)}
    demo = subprocess.run(["./dev", "demo"], cwd=repo, env=env, capture_output=True, text=True)
    assert demo.returncode == 0, demo.stderr
    calls = log.read_text()
    assert "apt-get" not in calls and calls.count("isrcheck check classic") == 2
    log.unlink()
    test = subprocess.run(["./dev", "test"], cwd=repo, env=env, capture_output=True, text=True)
    assert test.returncode == 2 and "Java is missing" in test.stderr
    assert "apt-get" in log.read_text()


def test_the_tutorial_model_code_runs_as_printed():
    text = (ROOT / "docs" / "tutorial.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def make_model" in b)
    namespace: dict = {}
    exec(compile(block, "docs/tutorial.md", "exec"), namespace)
    model = namespace["make_model"](small=3, big=5)
    assert list(model.init_states()) == [(0, 0)]
    assert [(repr(a), s) for a, s in model.successors((0, 0))][:2] == [
        ("Fill(jug='small')", (3, 0)), ("Fill(jug='big')", (0, 5))]
    assert os.path.isfile(ROOT / "docs" / "examples" / "jugs.py")
