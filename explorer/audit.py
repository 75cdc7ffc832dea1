"""Checks of the model contract that cost a second expansion, run on a sample of states.

A model whose successors differ between two calls on the same state (a random choice, a counter
or cache kept in the model object, iteration over a set built in varying order) gives different
counts from run to run and traces that cannot be rebuilt; one whose actions print alike or print
as Python's default ``<... object at 0x...>`` gives traces that cannot be replayed. Neither shows
in a single expansion, so the engine re-expands a cheap sample of states (``audit_successors``)
and compares. Exhaustive checking of every state would double the cost of a run; a sample finds
the usual causes, which misbehave on most states, within the first few levels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from explorer.errors import ContractError
from explorer.fingerprint import encode

_DEFAULT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-fA-F]+>")


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _listing(pairs: Sequence[tuple[str, Any]]) -> str:
    shown = ", ".join(f"{a} -> {_short(s, 80)}" for a, s in pairs[:6])
    return shown + (f", ... ({len(pairs)} in all)" if len(pairs) > 6 else "") if pairs else "(none)"


def audit_init_states(first: Sequence[Any], second: Sequence[Any]) -> None:
    """``init_states()`` called twice must give the same states in the same order, and some."""
    if not first:
        raise ContractError(
            "the model's init_states() returned no states, so there is nothing to explore and nothing was "
            "checked; return at least one initial state (a sequence, in a fixed order)"
        )
    if list(first) != list(second):
        raise ContractError(
            "the model's init_states() returned different states in two calls; it must return the same "
            "states in the same order every time (no random choices, no state kept between calls)"
        )


def audit_successors(model: Any, state: Any) -> None:
    """Expand ``state`` twice and compare; check that action reprs can identify each step.

    Raises ContractError naming the state, what differed and how to fix the model."""
    encode(state)  # refuses floats, lists, dicts by name
    first = [(repr(a), s) for a, s in model.successors(state)]
    second = [(repr(a), s) for a, s in model.successors(state)]
    if first != second:
        raise ContractError(
            f"the model's successors() returned different results in two calls on the same state "
            f"{_short(state)}: first call [{_listing(first)}], second call [{_listing(second)}]. successors() "
            "must be deterministic, a function of the state alone, in a fixed order: no random choices, no counters or "
            "caches kept in the model object between calls, and sort a frozenset (sorted(...)) before "
            "iterating over it when the order decides what is yielded"
        )
    targets: dict[str, Any] = {}
    for text, succ in first:
        if _DEFAULT_REPR.search(text):
            raise ContractError(
                f"an action of the model prints as Python's default {text!r}, which changes from run to run, so "
                "traces naming it can never be replayed; make the action class a @dataclass(frozen=True) (its "
                "repr then names its fields) or give it a __repr__ that says what the step does"
            )
        if text in targets and targets[text] != succ:
            raise ContractError(
                f"two successors of the state {_short(state)} have the same action {text} but lead to different "
                "states; replay and exported regressions find a step by its action's repr, so they could take "
                "the wrong one. Give the action the field that tells the two steps apart (for example the "
                "replica or the value it acts on), so each successor of a state has its own repr"
            )
        targets[text] = succ


def audit_trace_steps(model: Any, trace: Any) -> None:
    """Every step of a trace about to be written must be identifiable by its action's repr: no
    other successor of the step's source state prints the same and leads elsewhere, and no action
    prints as Python's default repr. Checked exactly, on the trace, before a file is written, since
    replay and regressions depend on it."""
    for before, after in zip(trace.steps, trace.steps[1:], strict=False):
        text = repr(after.action)
        if _DEFAULT_REPR.search(text):
            audit_successors(model, before.state)  # raises with the explanation
        clash = [s for a, s in model.successors(before.state) if repr(a) == text and s != after.state]
        if clash:
            raise ContractError(
                f"the trace cannot be written so that it replays: from the state {_short(before.state)} two "
                f"successors have the same action {text} but lead to different states. Replay and exported "
                "regressions find a step by its action's repr; give the action the field that tells the two steps "
                "apart (for example the replica or the value it acts on), so each successor of a state has its "
                "own repr"
            )
