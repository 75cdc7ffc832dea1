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
from collections.abc import Callable, Sequence
from typing import Any

from isrcheck.explorer.contract import within_bounds
from isrcheck.explorer.errors import ContractError, ModelError, UserError
from isrcheck.explorer.search.fingerprint import encode

# States of each level audited by ``audit_level``, spread over the level.
LEVEL_SAMPLE = 8

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


def audited_init_states(model: Any) -> list[Any]:
    """``model.init_states()`` as a list, called twice and compared (``audit_init_states``); an
    exception of the model's is a ``ModelError`` naming ``init_states()``."""
    try:
        inits = list(model.init_states())
        audit_init_states(inits, list(model.init_states()))
    except (UserError, ModelError, MemoryError):
        raise
    except Exception as exc:
        raise ModelError("init_states()", exc, model=model) from exc
    return inits


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


def audit_level(model: Any, size: int, state_at: Callable[[int], Any], trace_at: Callable[[int], Any]) -> None:
    """Audit ``LEVEL_SAMPLE`` states spread over a level of ``size`` states (``state_at(pos)``),
    within the model's bounds; an exception of the model's is a ``ModelError`` with the behaviour
    to the state (``trace_at(pos)``, None when it cannot be rebuilt)."""
    bounded = hasattr(model, "within_bounds")
    stride = max(1, size // LEVEL_SAMPLE)
    for pos in range(0, size, stride)[:LEVEL_SAMPLE]:
        state = state_at(pos)
        what = "within_bounds(state)"
        try:
            if bounded and not within_bounds(model, state):
                continue
            what = "successors(state)"
            audit_successors(model, state)
        except (UserError, ModelError, MemoryError):
            raise
        except Exception as exc:
            raise ModelError(what, exc, model=model, state=state, trace=trace_at(pos)) from exc
