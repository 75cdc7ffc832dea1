"""Rebuilding a trace from the keys along a path, as TLC rebuilds its error trace from parent
fingerprints: the visited set keeps only each state's key and its parent's key, and the states
and actions of a counterexample are recomputed by re-running the model forward. Storing traces
whole would cost memory on every state for the few that end in a violation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from isrcheck.explorer.errors import ContractError
from isrcheck.explorer.result import Step, Trace


def rebuild_trace(model: Any, keys: Sequence[Any], key_of: Callable[[Any], Any]) -> Trace:
    """The trace whose i-th state has key ``keys[i]``: the first initial state with ``keys[0]``,
    then at each step the first successor (in the model's order) with the next key."""
    state = next((s for s in model.init_states() if key_of(s) == keys[0]), None)
    if state is None:
        raise ContractError(
            "could not rebuild a trace: no initial state has the recorded key; init_states() must "
            "return the same states in every call and every process"
        )
    steps = [Step(None, state)]
    for depth, key in enumerate(keys[1:], start=2):
        found = next(((a, t) for a, t in model.successors(state) if key_of(t) == key), None)
        if found is None:
            raise ContractError(
                f"could not rebuild a trace at depth {depth}: the state recorded as a successor of "
                f"{state!r:.200} is not among its successors now; successors() must be deterministic "
                "(no randomness, no state kept between calls, no iteration over salted hashes)"
            )
        steps.append(Step(*found))
        state = found[1]
    return Trace(tuple(steps))


def key_path(parents: Any, key: Any) -> list[Any]:
    """Keys from an initial state to ``key``, following ``parents[key]`` until None."""
    path = [key]
    parent = parents[key]
    while parent is not None:
        path.append(parent)
        parent = parents[parent]
    path.reverse()
    return path
