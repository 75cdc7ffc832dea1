"""Making a counterexample shorter without a search: delete steps and keep what still fails.

Hypothesis shrinks a stateful run by its choice sequence, where each step is an index into the
actions enabled at that state; deleting an early step shifts every later index onto another
action, so its shrunk traces stay a few states longer than necessary. This pass works on the
trace itself, in the model's words: drop a block of steps, replay the remaining actions by their
repr (each must still be enabled), and keep the candidate if the same property fails anywhere
along it (the trace is then cut at the first failure). Blocks shrink from half the trace down to
single steps, then pairs of steps, to a fixpoint, as in delta debugging. It is a local minimum; only breadth-first
search (``isrcheck.explorer.check``) proves the shortest."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from isrcheck.explorer.result import Step, Trace, Violation
from isrcheck.explorer.selection import Selected, describe_failure


def _replay(model: Any, init: Any, actions: Sequence[str]) -> list[Step] | None:
    steps = [Step(None, init)]
    state = init
    for text in actions:
        match = next(((a, t) for a, t in model.successors(state) if repr(a) == text), None)
        if match is None:
            return None
        steps.append(Step(*match))
        state = match[1]
    return steps


def _first_failure(steps: list[Step], violation: Violation, props: Selected) -> Violation | None:
    """The same property's failure along ``steps``, cut at its first failing state."""
    if violation.kind == "always":
        prop = next(p for p in props.always if p.name == violation.property)
        for i, step in enumerate(steps):
            if not prop.predicate(step.state):
                return Violation(prop.name, "always", Trace(tuple(steps[: i + 1])), describe_failure(prop, step.state))
    elif violation.kind == "transition":
        prop = next(p for p in props.transition if p.name == violation.property)
        for i in range(1, len(steps)):
            before, after = steps[i - 1], steps[i]
            if not prop.predicate(before.state, after.action, after.state):
                return Violation(prop.name, "transition", Trace(tuple(steps[: i + 1])),
                                 describe_failure(prop, before.state, after.action, after.state))
    return None


def minimize(model: Any, violation: Violation, props: Selected) -> Violation:
    """A violation of the same property whose trace is no longer, usually shorter. Deadlock
    violations are returned as they are (a shorter path to another dead state is another bug)."""
    if violation.kind not in ("always", "transition"):
        return violation
    init = violation.trace.steps[0].state
    best = violation
    block = max(len(best.trace.actions) // 2, 1)
    while True:
        actions = [repr(a) for a in best.trace.actions]
        improved = False
        start = 0
        while start < len(actions):
            candidate = actions[:start] + actions[start + block:]
            steps = _replay(model, init, candidate)
            found = _first_failure(steps, violation, props) if steps is not None else None
            if found is not None and len(found.trace) < len(best.trace):
                best, improved = found, True
                actions = [repr(a) for a in best.trace.actions]
            else:
                start += block
        if improved:
            continue
        if block == 1:
            pair = _drop_a_pair(model, init, best, violation, props)
            if pair is None:
                return best
            best = pair
            continue
        block //= 2


def _drop_a_pair(model: Any, init: Any, best: Violation, violation: Violation, props: Selected) -> Violation | None:
    """Two steps that only go together (a write and the fetch that copies it, say) survive every
    single deletion; try each pair once single deletions are exhausted."""
    actions = [repr(a) for a in best.trace.actions]
    for i in range(len(actions)):
        for j in range(i + 1, len(actions)):
            steps = _replay(model, init, actions[:i] + actions[i + 1:j] + actions[j + 1:])
            found = _first_failure(steps, violation, props) if steps is not None else None
            if found is not None and len(found.trace) < len(best.trace):
                return found
    return None
