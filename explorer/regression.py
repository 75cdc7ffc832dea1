"""A counterexample exported as a pytest file a user can commit, as Hypothesis prints a failing
run as a program: it rebuilds the model with the same options, replays the recorded actions (each
must still be enabled, or the test fails naming the step) and asserts that the property still
fails at the last state. It pins the counterexample: when a fix removes it, the test says so,
and the user turns it into a test that the property now holds."""

from __future__ import annotations

import re
from typing import Any

from explorer.result import Violation


def regression_source(spec: str, options: dict[str, Any], violation: Violation, init_index: int = 0) -> str:
    name = re.sub(r"\W+", "_", violation.property).strip("_").lower() or "property"
    actions = "".join(f"    {repr(a)!r},\n" for a in violation.trace.actions)
    title = f"{violation.property} ({violation.kind}) fails after {len(violation.trace)} states"
    return f'''"""Regression pinned by isrcheck: {title}.

Replays the counterexample against the model; run with pytest.
"""

from explorer.registry import build_model
from explorer.replay import evaluate, replay_actions

MODEL = {spec!r}
OPTIONS = {options!r}
ACTIONS = [
{actions}]


def test_{name}_counterexample_reproduces():
    model = build_model(MODEL, OPTIONS)
    trace = replay_actions(model, ACTIONS, init_index={init_index})
    result = evaluate(model, trace, [{violation.property!r}])
    assert result.violates({violation.property!r}), "the recorded trace no longer violates {violation.property}"
'''


def init_index_of(model: Any, violation: Violation) -> int:
    first = violation.trace.steps[0].state
    return next(i for i, s in enumerate(model.init_states()) if s == first)
