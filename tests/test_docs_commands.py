"""Every command the docs show is run as a user would paste it, and must do what the docs say.

The convention (also in docs/contributing.md): in README.md and docs/*.md, inside ```sh fenced
blocks, every line that starts with ``isrcheck `` or ``.venv/bin/isrcheck `` is a command. It must
exit 0, unless the line ends with a shell comment containing ``exit N`` (``# exit 1: the
violation``), and it must never print a traceback. Commands that are illustrations or take long
belong in ```text blocks.

Each command runs verbatim through bash, with only the program name mapped to this interpreter
(``python -m isrcheck``), in a scratch copy of the repository (one per document, so relative
paths such as docs/examples/jugs.py resolve and files a command writes, such as cex.itf.json,
land there and are seen by the document's later commands, e.g. ``isrcheck replay cex.itf.json``),
without ``--quiet``, with stdout and stderr pipes (not a terminal).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fixtures.paths import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PREFIXES = (".venv/bin/isrcheck ", "isrcheck ")
EXIT = re.compile(r"#.*?\bexit\s+(\d+)")

# Commands (by a substring) that take more than ~15 s on this machine kind or need Spark; they run
# in the slow pass (CI runs it: ./dev test), never skipped.
SLOW = (
    "--engine spark",
    "--replicas 3 --symmetry",
    "--invariant StrongIsr --lemma RecordEpochsSorted",  # docs/proofs.md: 5 s CPU, 16 s wall under load
    # docs/proofs.md: 10 s CPU; tests/explorer/symbolic/test_symbolic_prove.py runs it
    "--invariant WeakIsr --lemma RecordEpochsSorted",
)


@dataclass(frozen=True)
class DocCommand:
    doc: Path
    line: int
    text: str
    expect: int

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"

    @property
    def slow(self) -> bool:
        return any(s in self.text for s in SLOW)

    def shell(self) -> str:
        prefix = next(p for p in PREFIXES if self.text.startswith(p))
        return f"{shlex.quote(sys.executable)} -m isrcheck {self.text[len(prefix):]}"


def extract(doc: Path) -> list[DocCommand]:
    """The commands of one document, in order."""
    commands = []
    fence: str | None = None  # the open fence's language, or None outside a fence
    for number, raw in enumerate(doc.read_text().splitlines(), start=1):
        line = raw.strip()
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
            continue
        if fence == "sh" and line.startswith(PREFIXES):
            m = EXIT.search(line)
            commands.append(DocCommand(doc, number, line, int(m.group(1)) if m else 0))
    return commands


COMMANDS = [c for doc in DOCS for c in extract(doc)]


def test_the_readme_commands_are_found():
    """The extractor itself: an empty list would make every other test here vacuous."""
    readme = [c for c in COMMANDS if c.doc.name == "README.md"]
    assert len(readme) >= 5
    assert any(c.text.startswith(".venv/bin/isrcheck scenario ") for c in readme)
    assert any(c.expect == 1 for c in readme), "a README command that finds a violation says # exit 1"


_copies: dict[Path, Path] = {}
_runs: dict[DocCommand, subprocess.CompletedProcess] = {}


def _scratch(doc: Path, factory: pytest.TempPathFactory) -> Path:
    if doc not in _copies:
        target = factory.mktemp(f"docs-{doc.stem}") / "repo"
        shutil.copytree(ROOT, target, symlinks=True, ignore=shutil.ignore_patterns(
            ".venv", ".git", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache", "*.egg-info"))
        _copies[doc] = target
    return _copies[doc]


def _run(cmd: DocCommand, cwd: Path) -> subprocess.CompletedProcess:
    if cmd not in _runs:
        env = {**os.environ, "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable),
               "SPARK_LOCAL_IP": os.environ.get("SPARK_LOCAL_IP", "127.0.0.1")}
        env.pop("PYTHONPATH", None)  # as a user's shell: the copy's own files, found from its root
        _runs[cmd] = subprocess.run(["bash", "-c", cmd.shell()], cwd=cwd, env=env, capture_output=True, text=True,
                                    timeout=900, stdin=subprocess.DEVNULL)
    return _runs[cmd]


@pytest.mark.parametrize("cmd", [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.slow else [])
                                 for c in COMMANDS])
def test_documented_command_runs_as_documented(cmd: DocCommand, tmp_path_factory: pytest.TempPathFactory):
    cwd = _scratch(cmd.doc, tmp_path_factory)
    # The document's earlier commands first (once each): a later one may read what they wrote.
    # Slow ones are not prerequisites: they run in their own test.
    for earlier in COMMANDS:
        if earlier.doc == cmd.doc and earlier.line < cmd.line and not earlier.slow:
            _run(earlier, cwd)
    proc = _run(cmd, cwd)
    output = proc.stdout + proc.stderr
    where = f"{cmd.id}: {cmd.text}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
    assert "Traceback" not in output, where
    assert proc.returncode == cmd.expect, f"exit {proc.returncode}, the docs say {cmd.expect}; {where}"
