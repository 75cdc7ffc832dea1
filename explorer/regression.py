"""A counterexample exported as a pytest file a user can commit, as Hypothesis prints a failing
run as a program: it rebuilds the model with the same options, replays the recorded actions (each
must still be enabled, or the test fails naming the step) and asserts that the property still
fails at the last state (for a lasso: closes the loop with the recorded action and asserts that
the loop is fair and the liveness property never holds on it). It pins the counterexample: when a
fix removes it, the test says so, and the user turns it into a test that the property now holds."""

from __future__ import annotations

import re
from typing import Any

from explorer.result import Violation


def regression_source(spec: str, options: dict[str, Any], violation: Violation, init_index: int = 0) -> str:
    name = re.sub(r"\W+", "_", violation.property).strip("_").lower() or "property"
    actions = "".join(f"    {repr(a)!r},\n" for a in violation.trace.actions)
    title = f"{violation.property} ({violation.kind}) fails after {len(violation.trace)} states"
    trace = violation.trace
    if trace.loop is not None:
        return _lasso_source(spec, options, violation, init_index, name, actions)
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


def _lasso_source(spec: str, options: dict[str, Any], violation: Violation, init_index: int, name: str,
                  actions: str) -> str:
    trace = violation.trace
    loop_action = None if trace.loop_action is None else repr(trace.loop_action)
    title = (f"{violation.property} ({violation.kind}) fails on a lasso of {len(trace)} states "
             f"looping back to state {trace.loop + 1}")
    return f'''"""Regression pinned by isrcheck: {title}.

Replays the prefix, closes the loop, and checks that the loop is fair and the property never
holds on it; run with pytest.
"""

from explorer.registry import build_model
from explorer.replay import close_loop, evaluate, replay_actions

MODEL = {spec!r}
OPTIONS = {options!r}
ACTIONS = [
{actions}]
LOOP = {trace.loop!r}  # 0-based index of the state the last one goes back to
LOOP_ACTION = {loop_action!r}  # None: the last state stutters forever


def test_{name}_lasso_reproduces():
    model = build_model(MODEL, OPTIONS)
    trace = close_loop(model, replay_actions(model, ACTIONS, init_index={init_index}), LOOP, LOOP_ACTION)
    result = evaluate(model, trace, [{violation.property!r}])
    assert result.violates({violation.property!r}), "the recorded lasso no longer violates {violation.property}"
'''
