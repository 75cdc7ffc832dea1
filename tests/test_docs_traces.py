"""The traces pasted in docs/ are what isrcheck prints today (``python docs/update_traces.py``
rewrites them after a deliberate change of model or renderer)."""

from __future__ import annotations

import sys

import pytest

from tests.fixtures.paths import DOCS

sys.path.insert(0, str(DOCS))
import update_traces  # noqa: E402

CASES = [(path.name, cmd, pasted) for path in sorted(DOCS.glob("*.md")) for cmd, pasted in update_traces.blocks(path)]


def test_docs_hold_command_blocks():
    assert len(CASES) >= 10


@pytest.mark.parametrize(("doc", "command", "pasted"), CASES, ids=[f"{d}:{c[11:60]}" for d, c, _ in CASES])
def test_pasted_trace_is_current(doc, command, pasted):
    _, argv = update_traces.command_of(command)
    assert update_traces.run(argv) == pasted, f"{doc} is stale: run python docs/update_traces.py"
