"""The public contract between a model and the explorer.

A model is any object with ``init_states``, ``successors`` and ``properties``; ``within_bounds``
and ``canonical`` are optional. The explorer never imports a concrete model: the Kafka replication
model reaches it through the registry (``explorer.registry``) exactly as a user's own model file does.

States are immutable, hashable, picklable values built from ints, strings, tuples and frozensets
(no dicts, lists or floats), so that their identity does not depend on the process that built them.
Actions are small frozen values whose ``repr`` reads like the protocol step they model.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from explorer.errors import ContractError  # noqa: F401  (re-exported: part of the contract)

S = TypeVar("S")
A = TypeVar("A")


class Kind(enum.Enum):
    """What a property claims.

    ALWAYS: the predicate holds in every reachable state (an invariant).
    SOMETIMES: the predicate holds in at least one reachable state; a complete run that never
        reaches one reports the property *vacuous* (the checker proved nothing interesting).
    TRANSITION: the predicate holds on every explored step ``(state, action, next_state)``.
    EVENTUALLY: reserved for liveness under fairness; declared so models can name it, and
        rejected by the engines until they check it.
    """

    ALWAYS = "always"
    SOMETIMES = "sometimes"
    TRANSITION = "transition"
    EVENTUALLY = "eventually"


@dataclass(frozen=True)
class Property:
    """A named property of a model: plain data, as in Stateright.

    ``predicate`` takes a state (ALWAYS, SOMETIMES, EVENTUALLY) or ``(state, action, next_state)``
    (TRANSITION) and returns a bool. ``describe``, when given, turns a failing state (or step)
    into a short text naming the values that failed it; traces print it under the last state.
    ``default``: checked when a run names no properties; a property that is False here (a literal
    form kept for reference, an expensive check) runs only when named, as in TLC's configuration.
    """

    name: str
    kind: Kind
    predicate: Callable[..., bool]
    doc: str = ""
    describe: Callable[..., str] | None = field(default=None, compare=False)
    default: bool = True

    @classmethod
    def always(cls, name: str, predicate: Callable[[Any], bool], doc: str = "", describe=None,
               default: bool = True) -> Property:
        return cls(name, Kind.ALWAYS, predicate, doc, describe, default)

    @classmethod
    def sometimes(cls, name: str, predicate: Callable[[Any], bool], doc: str = "", describe=None,
               default: bool = True) -> Property:
        return cls(name, Kind.SOMETIMES, predicate, doc, describe, default)

    @classmethod
    def transition(
        cls, name: str, predicate: Callable[[Any, Any, Any], bool], doc: str = "", describe=None,
        default: bool = True,
    ) -> Property:
        return cls(name, Kind.TRANSITION, predicate, doc, describe, default)


@runtime_checkable
class Model(Protocol[S, A]):
    """What the explorer needs from a model. Orders must be deterministic: the same model gives
    the same initial states and the same successors in the same order in every process.

    Optional methods, found by name: ``within_bounds(state) -> bool``, ``canonical(state) -> state``
    (symmetry representative), ``state_view(state) -> dict`` (named fields for traces), and
    ``signals(state) -> dict[str, Any]``: what an operator's dashboard would show in that state
    (for a replicated log: who leads, ISR size, under-replication, follower lag). Signals are
    derived from the state, never part of it: traces print them as one line per state
    (``[signals] leader 1 | ISR 2/3 | under-replicated | lag r2=1``) and ITF JSON carries them in
    each state's ``#meta``, so replay and state comparison ignore them. Keys are short words;
    values are ints, strings, bools (True shows the key alone, False hides it), None (shown
    ``-``), lists, or flat dicts (shown ``k=v k=v``).

    ``picture(state[, detail]) -> dict``, optional: the state drawn for the HTML trace report
    (``--html``; docs/html.md), as Stateright's models can draw themselves. Without it a report
    shows the ``state_view`` fields as a table, changes highlighted. The dict, all keys optional
    but ``lanes[].name``::

        {"lanes": [{"name": "replica 1",                    # one row each (a replica, a jug)
                    "tags": ["leader", {"text": "stopped", "tone": "bad"}],   # tone: lead good warn bad dim
                    "cells": [{"text": "7", "top": "0",      # inside the cell; above it (an offset)
                               "color": 2,                   # an int: one palette colour per value
                               "key": "record 7",            # what a violation's detail may name
                               "hint": "...", "tick": True, "tone": "bad"}],
                    "marks": [{"name": "HW", "at": 1}],      # a line before cell ``at`` (a watermark)
                    "dim": False}],                          # drawn faded (a stopped broker)
         "facts": [{"label": "controller", "value": "leader 1" or [item, ...]}],  # items as tags
         "legend": {"2": "leader epoch 2"},                  # what each colour means
         "focus": {"keys": ["record 7"], "offsets": [0],     # only in the failing state's picture:
                   "missing": [{"lane": 1, "at": 0, "text": "record 7 lost"}]}}   # outlined, marked

    The explorer diffs consecutive pictures (cells by lane name and position, moved marks, new tags
    and facts) to highlight what a step changed. It passes the violated property's ``detail`` text
    only for the state where the property fails, and only if the hook takes a second argument; the
    ``focus`` keys then stay outlined in every state of the trace.
    """

    def init_states(self) -> Sequence[S]: ...

    def successors(self, state: S) -> Iterable[tuple[A, S]]: ...

    def properties(self) -> Sequence[Property]: ...


def within_bounds(model: Any, state: Any) -> bool:
    """The model's bound, or True. A state outside the bounds is kept (counted, checked) but not
    expanded, like Stateright's boundary rather than TLC's CONSTRAINT (which discards the state)."""
    fn = getattr(model, "within_bounds", None)
    return True if fn is None else bool(fn(state))


def state_view(model: Any, state: Any) -> dict[str, Any]:
    """Named fields of a state for traces (diffs, ITF JSON): the model's ``state_view`` if it has
    one, a NamedTuple's fields, or the whole state under one name."""
    fn = getattr(model, "state_view", None)
    if fn is not None:
        return dict(fn(state))
    if hasattr(state, "_asdict"):
        return dict(state._asdict())
    return {"state": state}


def signals(model: Any, state: Any) -> dict[str, Any] | None:
    """The model's operator signals for ``state``, or None when the model defines none."""
    fn = getattr(model, "signals", None)
    return None if fn is None else dict(fn(state))


def canonical_fn(model: Any) -> Callable[[Any], Any] | None:
    """The model's symmetry representative function, or None when the model has none."""
    return getattr(model, "canonical", None)
