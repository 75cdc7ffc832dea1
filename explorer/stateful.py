"""Hypothesis stateful testing of any model of the explorer contract.

Exhaustive search proves a property within small bounds; a random walk reaches states far past
them (five replicas, eight records) that breadth-first search cannot afford. ``machine_for``
derives a Hypothesis ``RuleBasedStateMachine`` from a model, so the same model, unchanged, is both
checked and tested:

- the initial state is drawn among ``init_states()`` (shrinks towards the first);
- one rule, ``step``, draws one of the enabled successors. It first draws an action *kind* (the
  action's class, or a string action itself), then one successor of that kind, so every kind of
  step is equally likely whatever its fan-out (a controller election is not drowned by forty
  possible writes), and shrinking moves towards the first kind and the first successor the model
  lists. The drawn value prints as the action's repr, so Hypothesis's own program reads like the
  protocol;
- enabledness is the model's successor function: only enabled successors can be drawn. A state
  with none, or outside ``within_bounds`` (checked but not expanded, as in the explorer), ends the
  run: the remaining steps stutter. (A Hypothesis ``@precondition`` that turns false for every
  rule is an error in Hypothesis, "no progress can be made", so halting is expressed in the draw.)
- ``always`` properties are Hypothesis invariants, ``transition`` properties are checked on each
  step, ``sometimes`` properties are reported as Hypothesis events when a run reaches them.

A violation raises ``StatefulViolation`` (an ``AssertionError``) whose message is the explorer's
trace (``isrcheck.explorer.traces.text.render_violation``) and either a runnable pytest regression
(``isrcheck.explorer.traces.regression.regression_source``, when the model's registry spec and options are given)
or the action list for ``isrcheck.explorer.traces.replay.replay_actions``. Hypothesis shrinks it first, and
``run_machine``/``find_violation`` then delete steps from the shrunk trace while the same property
still fails (``isrcheck.explorer.traces.minimize``), so the trace printed is short, though not necessarily the
shortest: ``isrcheck.explorer.check`` proves that.

Two lines of test::

    def test_kip320_keeps_committed_records():
        run_machine(make_model(generation="kip320", replicas=3), settings=settings(max_examples=500))

or, for unittest-style collection, ``TestKip320 = machine_for(model).TestCase``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any

from hypothesis import event
from hypothesis import settings as Settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from isrcheck.explorer.contract import within_bounds
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.result import Step, Trace, Violation
from isrcheck.explorer.selection import describe_failure, select_properties
from isrcheck.explorer.traces.minimize import minimize
from isrcheck.explorer.traces.regression import regression_source
from isrcheck.explorer.traces.text import render_violation

__all__ = ["StatefulViolation", "MachineStats", "action_kind", "find_violation", "machine_for", "run_machine"]


class StatefulViolation(AssertionError):
    """A property failed in a Hypothesis run. ``violation`` is the explorer's view of it (property,
    kind, trace, detail) and ``init_index`` the initial state it started from, so it replays with
    ``isrcheck.explorer.traces.replay.replay_actions(model, exc.actions, exc.init_index)``."""

    def __init__(self, report: str, violation: Violation, init_index: int):
        super().__init__(report)
        self.violation = violation
        self.init_index = init_index

    @property
    def actions(self) -> list[str]:
        return [repr(a) for a in self.violation.trace.actions]


class MachineStats:
    """What a machine class saw across the runs of one test: how many examples (machine instances)
    ran, and which example first failed and when. Benchmarks read it; tests need not."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.examples = 0
        self.started: float | None = None
        self.first_failure: int | None = None  # 1-based example number
        self.first_failure_seconds: float | None = None
        self.first_failure_length: int | None = None  # states in the first (unshrunk) failing trace

    def _started_example(self) -> None:
        if self.started is None:
            self.started = time.perf_counter()
        self.examples += 1

    def _failed(self, length: int) -> None:
        if self.first_failure is None:
            self.first_failure = self.examples
            self.first_failure_seconds = time.perf_counter() - (self.started or time.perf_counter())
            self.first_failure_length = length


class _Choice:
    """A drawn successor; prints as its action so Hypothesis's program reads like the protocol."""

    __slots__ = ("action", "state")

    def __init__(self, action: Any, state: Any):
        self.action, self.state = action, state

    def __repr__(self) -> str:
        return repr(self.action)


class _Halt:
    def __repr__(self) -> str:
        return "halted (no enabled action, or out of bounds)"


_HALT = _Halt()


def action_kind(action: Any) -> str:
    """The group an action is drawn in: its class name, a string action itself, or the leading
    string of a tuple action (``("send", 1, 2)``)."""
    if isinstance(action, str):
        return action
    if isinstance(action, tuple) and action and isinstance(action[0], str):
        return action[0]
    return type(action).__qualname__


def _choose(machine: Any) -> st.SearchStrategy:
    groups = machine._groups()
    if not groups:
        return st.just(_HALT)
    return st.integers(0, len(groups) - 1).flatmap(lambda g: st.sampled_from(groups[g]))


def _identity_digest(model: Any, spec: str | None, options: dict[str, Any] | None, names: list[str],
                     max_steps: int | None) -> bytes:
    """A stable key per (model, options, properties) so the example database never replays one
    model's saved failure against another model that happens to share the machine's source."""
    if spec is not None:
        ident = f"{spec}|{sorted((options or {}).items())!r}"
    else:
        simple = {k: v for k, v in sorted(vars(model).items()) if isinstance(v, int | str | bool | type(None))} \
            if hasattr(model, "__dict__") else {}
        ident = f"{type(model).__module__}.{type(model).__qualname__}|{simple!r}"
    ident += f"|{names!r}|{max_steps}"
    return hashlib.sha256(ident.encode()).digest()


def machine_for(
    model: Any,
    *,
    properties: Sequence[str] | None = None,
    max_steps: int | None = None,
    spec: str | None = None,
    options: dict[str, Any] | None = None,
    check_deadlock: bool = False,
    name: str | None = None,
) -> type[RuleBasedStateMachine]:
    """A ``RuleBasedStateMachine`` class that walks ``model``.

    properties: names of the ``always`` / ``transition`` properties to check (all when None), as
        ``isrcheck.explorer.check`` selects them; an unknown name is refused here, before any run.
    max_steps: actions per run after the initial state (Hypothesis's ``stateful_step_count``, which
        also counts the step that draws the initial state, is set to max_steps + 1); None keeps the
        settings' value.
    spec, options: the model's registry spec (``classic`` or ``path/model.py:make_model``) and
        factory options; with them a failure prints a runnable pytest regression.
    check_deadlock: a state within bounds with no enabled action is a violation ("deadlock").
    name: the class name (default: the model's class name + "Machine").
    """
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise UserError(f"max_steps must be a positive integer (steps per Hypothesis run), not {max_steps!r}")
    if options is not None and spec is None:
        raise UserError("options were given without spec; pass spec= (the model's registry name or "
                         "path/to/model.py:factory) so the printed regression can rebuild the model")
    if options is not None and not isinstance(options, dict):
        raise UserError(f"options must be a dict of the model factory's keyword arguments, not {options!r:.80}")
    missing = [m for m in ("init_states", "successors", "properties") if not callable(getattr(model, m, None))]
    if missing:
        raise UserError(f"{type(model).__name__} is not a model: it lacks {', '.join(missing)} "
                        "(see isrcheck.explorer.contract.Model)")
    props = select_properties(model, properties)
    inits = list(model.init_states())
    if not inits:
        raise UserError(f"{type(model).__name__}.init_states() returned no state; there is nothing to test")
    bounded = hasattr(model, "within_bounds")
    class_name = name or f"{type(model).__name__}Machine"

    def report(violation: Violation, init_index: int) -> str:
        text = render_violation(model, violation)
        if spec is not None:
            source = regression_source(spec, dict(options or {}), violation, init_index)
            return f"{text}\n\nAs a pytest regression (save it as tests/test_regression_....py):\n\n{source}"
        actions = "".join(f"    {repr(a)!r},\n" for a in violation.trace.actions)
        return (f"{text}\n\nReplay with isrcheck.explorer.traces.replay.replay_actions(model, ACTIONS, "
                f"init_index={init_index}):\nACTIONS = [\n{actions}]")

    class ModelMachine(RuleBasedStateMachine):
        stats = MachineStats()

        def __init__(self) -> None:
            super().__init__()
            self.steps: list[Step] = []
            self.init_index = 0
            self._cache: tuple[int, list[list[_Choice]]] | None = None
            self._reached: set[str] = set()
            type(self).stats._started_example()

        @property
        def current(self) -> Any:
            return self.steps[-1].state

        def _groups(self) -> list[list[_Choice]]:
            """Enabled successors of the current state, grouped by action kind in model order."""
            if self._cache is not None and self._cache[0] == len(self.steps):
                return self._cache[1]
            state = self.current
            grouped: dict[str, list[_Choice]] = {}
            if not bounded or within_bounds(model, state):
                for action, nxt in model.successors(state):
                    grouped.setdefault(action_kind(action), []).append(_Choice(action, nxt))
            groups = list(grouped.values())
            self._cache = (len(self.steps), groups)
            return groups

        def _fail(self, violation: Violation) -> None:
            type(self).stats._failed(len(violation.trace))
            # One raise site: Hypothesis tells bugs apart by where they are raised, and every
            # property violation of a model is one kind of failure to shrink.
            raise StatefulViolation(report(violation, self.init_index), violation, self.init_index)

        @initialize(index=st.integers(0, len(inits) - 1))
        def init(self, index: int) -> None:
            self.init_index = index
            self.steps = [Step(None, inits[index])]

        @rule(choice=st.runner().flatmap(_choose))
        def step(self, choice: Any) -> None:
            if choice is _HALT:
                return
            before = self.current
            self.steps.append(Step(choice.action, choice.state))
            for prop in props.transition:
                if not prop.predicate(before, choice.action, choice.state):
                    detail = describe_failure(prop, before, choice.action, choice.state)
                    self._fail(Violation(prop.name, "transition", Trace(tuple(self.steps)), detail))

        @invariant()
        def properties_hold(self) -> None:
            if not self.steps:
                return
            state = self.current
            for prop in props.always:
                if not prop.predicate(state):
                    self._fail(Violation(prop.name, "always", Trace(tuple(self.steps)),
                                         describe_failure(prop, state)))
            for prop in props.sometimes:
                if prop.name not in self._reached and prop.predicate(state):
                    self._reached.add(prop.name)
                    event(f"reached sometimes property {prop.name}")
            if check_deadlock and not self._groups() and (not bounded or within_bounds(model, state)):
                self._fail(Violation("deadlock", "deadlock", Trace(tuple(self.steps)), "no action is enabled"))

        def __repr__(self) -> str:
            return f"{class_name}(state {len(self.steps)}: {self.current!r:.200})" if self.steps else class_name

    ModelMachine.__name__ = ModelMachine.__qualname__ = class_name
    ModelMachine.model = model
    ModelMachine.selected = props
    ModelMachine.report = staticmethod(report)
    ModelMachine.max_steps = max_steps
    ModelMachine._hypothesis_internal_add_digest = _identity_digest(model, spec, options, props.names, max_steps)
    ModelMachine.TestCase.settings = _settings_for(ModelMachine, Settings(deadline=None))
    return ModelMachine


def _settings_for(machine: type[RuleBasedStateMachine], settings: Settings | None) -> Settings:
    base = settings if settings is not None else Settings(deadline=None)
    max_steps = getattr(machine, "max_steps", None)
    return base if max_steps is None else Settings(base, stateful_step_count=max_steps + 1)


def run_machine(model: Any, *, settings: Settings | None = None, **machine_options: Any) -> None:
    """Run Hypothesis over ``model`` (options as for ``machine_for``); raises ``StatefulViolation``
    with the shrunk counterexample, or returns None. ``settings`` defaults to the loaded profile
    with no deadline."""
    machine = model if isinstance(model, type) and issubclass(model, RuleBasedStateMachine) \
        else machine_for(model, **machine_options)
    try:
        run_state_machine_as_test(machine, settings=_settings_for(machine, settings))
    except StatefulViolation as exc:
        shorter = minimize(machine.model, exc.violation, machine.selected)
        if len(shorter.trace) < len(exc.violation.trace):
            raise StatefulViolation(machine.report(shorter, exc.init_index), shorter, exc.init_index) from None
        raise


def find_violation(model: Any, *, settings: Settings | None = None, **machine_options: Any) -> StatefulViolation | None:
    """The shrunk violation Hypothesis finds within ``settings``' budget, or None."""
    try:
        run_machine(model, settings=settings, **machine_options)
    except StatefulViolation as exc:
        return exc
    return None
