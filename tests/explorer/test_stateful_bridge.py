"""The Hypothesis bridge (isrcheck.explorer.stateful) on fixture models whose answers are known by hand."""

from __future__ import annotations

import pytest
from hypothesis import settings
from isrcheck.explorer.stateful import StatefulViolation, action_kind, find_violation, machine_for, run_machine
from isrcheck.explorer.traces.replay import evaluate, replay_actions

from isrcheck import Property, UserError, check
from tests.fixtures import paths
from tests.fixtures.models import Bits, Chain, Counters, Tick, TwoStarts

FIXTURES = str(paths.FIXTURES / "models.py")


def budget(n: int = 200) -> settings:
    return settings(settings.default, max_examples=n, deadline=None)


def test_counters_bug_is_found_and_shrunk_to_the_shortest_trace():
    model = Counters(3, 4, bug_at=5)
    found = find_violation(model, settings=budget())
    assert found is not None
    assert found.violation.property == "SumBelowBug" and found.violation.kind == "always"
    # every step adds one to the sum, so any trace that first reaches sum 5 is a shortest one
    shortest = check(model, properties=["SumBelowBug"]).violations[0].trace
    assert len(found.violation.trace) == len(shortest) == 6
    assert found.violation.detail == "sum of counters is 5"


def test_shrunk_run_replays_through_the_explorer_and_violates_again():
    model = Counters(3, 4, bug_at=5)
    found = find_violation(model, settings=budget())
    trace = replay_actions(model, found.actions, found.init_index)
    assert trace == found.violation.trace
    assert evaluate(model, trace, ["SumBelowBug"]).violates("SumBelowBug")


def test_transition_property_violation_is_shrunk_to_set_then_clear():
    found = find_violation(Bits(3), settings=budget())
    assert found is not None and found.violation.kind == "transition"
    assert found.actions == ["Toggle(bit=0)", "Toggle(bit=0)"]


def test_failure_message_is_the_explorer_trace_and_the_action_list():
    with pytest.raises(StatefulViolation) as info:
        run_machine(Counters(2, 3, bug_at=2), settings=budget())
    text = str(info.value)
    assert "SumBelowBug (invariant) violated in a trace of 3 states" in text
    assert "State 1: initial state" in text and "c0 = 0" in text
    assert "=> SumBelowBug fails here: sum of counters is 2" in text
    assert "replay_actions(model, ACTIONS, init_index=0)" in text and "'Tick(process=0)'," in text


def test_failure_from_a_later_initial_state_prints_a_regression_that_passes(tmp_path):
    with pytest.raises(StatefulViolation) as info:
        run_machine(TwoStarts(), settings=budget(), spec=f"{FIXTURES}:TwoStarts", options={})
    assert info.value.init_index == 1
    text = str(info.value)
    assert "As a pytest regression" in text
    source = text[text.index('"""Regression pinned by isrcheck'):]
    namespace: dict = {}
    exec(compile(source, str(tmp_path / "test_regression_not12.py"), "exec"), namespace)
    namespace["test_not12_counterexample_reproduces"]()


def test_a_model_without_violation_passes_and_halts_cleanly_when_nothing_is_enabled():
    run_machine(Chain(4), settings=budget(50))  # deadlocks after 3 steps; the run stutters, no error
    run_machine(Counters(2, 3), settings=budget(50))


def test_deadlock_is_a_violation_when_asked_for():
    found = find_violation(Chain(4), check_deadlock=True, settings=budget(50))
    assert found.violation.property == "deadlock" and len(found.violation.trace) == 4


class _Unbounded:
    """Counts up forever; within_bounds stops expansion after 3, so 3 is checked but 4 never exists."""

    def __init__(self, bad: int):
        self.bad = bad

    def init_states(self):
        return [0]

    def successors(self, state):
        yield "inc", state + 1

    def within_bounds(self, state):
        return state < 3

    def properties(self):
        return [Property.always("NotBad", lambda s: s != self.bad)]


def test_state_outside_bounds_is_checked_but_not_expanded():
    assert find_violation(_Unbounded(3), settings=budget(50)).violation.trace.states == [0, 1, 2, 3]
    run_machine(_Unbounded(4), settings=budget(50), max_steps=20)


def test_max_steps_bounds_each_run():
    # the bug needs 6 steps; runs of 5 steps can never reach it
    run_machine(Counters(3, 4, bug_at=6), max_steps=5, settings=budget(100))
    assert find_violation(Counters(3, 4, bug_at=6), max_steps=6, settings=budget(300)) is not None


def test_properties_are_selected_by_name_and_unknown_names_refused():
    run_machine(Counters(2, 3, bug_at=2), properties=["AllAtLimit"], settings=budget(30))
    with pytest.raises(UserError, match="unknown property 'Nope'"):
        machine_for(Counters(), properties=["Nope"])


@pytest.mark.parametrize("kwargs, message", [
    ({"max_steps": 0}, "max_steps must be a positive integer"),
    ({"options": {"n": 2}}, "options were given without spec"),
    ({"spec": "x.py", "options": [1]}, "options must be a dict"),
])
def test_bad_options_are_refused_up_front(kwargs, message):
    with pytest.raises(UserError, match=message):
        machine_for(Counters(), **kwargs)


def test_not_a_model_is_refused():
    with pytest.raises(UserError, match="lacks init_states"):
        machine_for(object())


def test_action_kinds_group_by_class_or_leading_string():
    assert action_kind(Tick(1)) == "Tick"
    assert action_kind("inc") == "inc"
    assert action_kind(("send", 1, 2)) == "send"


def test_example_database_keys_differ_between_models_and_options():
    a = machine_for(Counters(2, 3, bug_at=2))._hypothesis_internal_add_digest
    b = machine_for(Counters(3, 3, bug_at=2))._hypothesis_internal_add_digest
    c = machine_for(Counters(2, 3, bug_at=2), properties=["AllAtLimit"])._hypothesis_internal_add_digest
    assert len({a, b, c}) == 3
    assert a == machine_for(Counters(2, 3, bug_at=2))._hypothesis_internal_add_digest


# The two-line form: a unittest TestCase pytest collects like any test.
TestCountersMachine = machine_for(Counters(3, 3), max_steps=10).TestCase


def test_minimize_deletes_detours_from_a_counterexample():
    from isrcheck.explorer.result import Step, Trace, Violation
    from isrcheck.explorer.selection import select_properties
    from isrcheck.explorer.traces.minimize import minimize

    model = Bits(3)
    props = select_properties(model, ["NeverClearBit0"])
    steps, state = [Step(None, frozenset())], frozenset()
    for bit in (1, 2, 0, 1, 0):  # set 1, set 2, set 0, clear 1, clear 0: only the last two matter
        action, state = next((a, t) for a, t in model.successors(state) if a.bit == bit)
        steps.append(Step(action, state))
    long = Violation("NeverClearBit0", "transition", Trace(tuple(steps)))
    short = minimize(model, long, props)
    assert short.trace.states == [frozenset(), frozenset({0}), frozenset()]
    assert minimize(model, short, props).trace == short.trace  # a fixpoint
