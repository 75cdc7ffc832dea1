"""A counterexample exported as a pytest file a user can commit, as Hypothesis prints a failing
run as a program: it rebuilds the model with the same options, replays the recorded actions (each
must still be enabled, or the test fails naming the step) and asserts that the property still
fails at the last state (for a lasso: closes the loop with the recorded action and asserts that
the loop is fair and the liveness property never holds on it).

It pins the counterexample, so once a fix removes it the test fails and says so. The file has an
``EXPECT`` switch for that moment: set ``EXPECT = "fixed"`` and the same test asserts the fix
instead (the recorded path is no longer possible, or the property now holds along it), so the
bug stays fixed; if it comes back, the test fails with the trace rendered and written as ITF and HTML
files (``isrcheck.testing.assert_trace_holds``, the pytest plugin's way of failing). The model file
is recorded relative to the regression file, so the test runs from any directory and keeps working
when the pair is moved together."""

from __future__ import annotations

import os
import re
from typing import Any

from isrcheck.explorer.registry import portable_spec
from isrcheck.explorer.result import Violation


def regression_source(spec: str, options: dict[str, Any], violation: Violation, init_index: int = 0,
                      *, relative_to: str | os.PathLike | None = None, properties_file: str | None = None) -> str:
    """The test file's text. ``relative_to``: the folder the file will be written to (the model
    path is recorded relative to it); None records it absolute. ``properties_file``: the run's
    ``--properties FILE``, recorded the same way and added to the rebuilt model."""
    name = re.sub(r"\W+", "_", violation.property).strip("_").lower() or "property"
    actions = "".join(f"    {repr(a)!r},\n" for a in violation.trace.actions)
    title = f"{violation.property} ({violation.kind}) fails after {len(violation.trace)} states"
    trace = violation.trace
    model = portable_spec(spec, relative_to)
    if trace.loop is not None:
        return _with_properties_file(_lasso_source(model, options, violation, init_index, name, actions),
                                     properties_file, relative_to)
    if violation.kind == "deadlock":
        fails = "not list(model.successors(trace.last))"
        stays_fixed = f'assert not ({fails}), "the recorded trace still violates {violation.property}"'
    else:
        fails = "evaluate(model, trace, [PROPERTY]).violates(PROPERTY)"
        # isrcheck.testing: a failure shows the trace as isrcheck check prints it, with ITF and HTML files
        stays_fixed = ("assert_trace_holds(model, trace, PROPERTY, spec=MODEL, options=OPTIONS, "
                       "note='the bug is back')")
    return _with_properties_file(f'''"""Regression pinned by isrcheck: {title}.

Replays the counterexample against the model; run with pytest. While EXPECT is "violated" the test
passes as long as the bug reproduces. Once the model is fixed it fails; then set EXPECT = "fixed"
and it asserts the fix instead: a recorded step is no longer enabled, or {violation.property} holds
along the recorded steps.
"""

import os

from isrcheck.explorer.registry import build_model, resolve_spec
# evaluate is not used for a deadlock's trace
from isrcheck.explorer.traces.replay import Divergence, evaluate, replay_actions  # noqa: F401
from isrcheck.testing import assert_trace_holds  # noqa: F401  (not used for a deadlock's trace)

EXPECT = "violated"  # or "fixed"
MODEL = {model!r}  # a model file's path is relative to this file's folder
OPTIONS = {options!r}
PROPERTY = {violation.property!r}
ACTIONS = [
{actions}]
HERE = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else None


def test_{name}_counterexample_reproduces():
    model = build_model(resolve_spec(MODEL, HERE), OPTIONS)
    if EXPECT == "violated":
        try:
            trace = replay_actions(model, ACTIONS, init_index={init_index})
        except Divergence as exc:
            raise AssertionError(f"the recorded trace is no longer possible ({{exc}}); if the bug is fixed, "
                                 "set EXPECT = 'fixed'") from exc
        assert {fails}, (
            "the recorded trace no longer violates {violation.property}; if the bug is fixed, set EXPECT = 'fixed'")
    else:
        try:
            trace = replay_actions(model, ACTIONS, init_index={init_index})
        except Divergence:
            return  # a recorded step is no longer possible: the path to the bug is gone
        {stays_fixed}
''', properties_file, relative_to)


def _with_properties_file(source: str, path: str | None, relative_to: str | os.PathLike | None) -> str:
    """The source rebuilding its model with the run's ``--properties`` file added (unchanged without one)."""
    if not path:
        return source
    build = "    model = build_model(resolve_spec(MODEL, HERE), OPTIONS)\n"
    added = "    model = with_properties_file(model, resolve_spec(PROPERTIES_FILE, HERE))\n"
    head = "from isrcheck.explorer.registry import build_model, resolve_spec\n"
    source = source.replace(head, head + "from isrcheck.explorer.extra import with_properties_file\n", 1)
    source = source.replace("HERE = os.path", f"PROPERTIES_FILE = {portable_spec(path, relative_to)!r}  "
                            "# --properties, relative to this file's folder\nHERE = os.path", 1)
    return source.replace(build, build + added, 1)


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

import os

from isrcheck.explorer.registry import build_model, resolve_spec
from isrcheck.explorer.traces.replay import close_loop, evaluate, replay_actions

MODEL = {spec!r}  # a model file's path is relative to this file's folder
OPTIONS = {options!r}
ACTIONS = [
{actions}]
LOOP = {trace.loop!r}  # 0-based index of the state the last one goes back to
LOOP_ACTION = {loop_action!r}  # None: the last state stutters forever
HERE = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else None


def test_{name}_lasso_reproduces():
    model = build_model(resolve_spec(MODEL, HERE), OPTIONS)
    trace = close_loop(model, replay_actions(model, ACTIONS, init_index={init_index}), LOOP, LOOP_ACTION)
    result = evaluate(model, trace, [{violation.property!r}])
    assert result.violates({violation.property!r}), "the recorded lasso no longer violates {violation.property}"
'''
