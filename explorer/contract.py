"""The public contract between a model and the explorer.

A model is any object with ``init_states``, ``successors`` and ``properties``; ``within_bounds``
and ``canonical`` are optional. The explorer never imports a concrete model: the Kafka replication
model reaches it through the registry (``isrcheck.explorer.registry``) exactly as a user's own model file does.

States are immutable, hashable, picklable values built from ints, strings, tuples and frozensets
(no dicts, lists or floats), so that their identity does not depend on the process that built them.
Actions are small frozen values whose ``repr`` reads like the protocol step they model.

Liveness (``Kind.EVENTUALLY``, ``Kind.LEADS_TO``) is checked under the fairness the model declares
per *action family*, with two optional methods:

- ``fairness() -> dict[str, str]``: ``{family: "weak" | "strong"}``. Weak fairness (TLA+'s WF): an
  action of the family that stays enabled forever is eventually taken. Strong fairness (SF): one
  enabled infinitely often is eventually taken. Families not named have no fairness: the system
  may stop taking them forever. No method, no fairness: every liveness property that does not
  hold in the initial states fails by stuttering, as in TLA+ without a fairness conjunct.
- ``action_family(action) -> str``: the family of an action. Without it, the family is the
  action's class name, or for an action that is a string, its first word before a space or ``(``
  (``"enter(1)"`` is family ``enter``). A family is a TLA+ action disjunction: it is enabled when
  any of its actions is, and taken when any of them is.

Behaviours may stutter (repeat a state) at any point, as in TLA+: a behaviour that stutters forever
in a state is fair exactly when no fair family is enabled there. A state with no successor (a
deadlock) therefore ends a fair behaviour by stuttering forever, which is TLC's treatment when it
runs with ``-deadlock`` (deadlocks not reported as errors).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from isrcheck.explorer.errors import ContractError  # noqa: F401  (re-exported: part of the contract)

S = TypeVar("S")
A = TypeVar("A")


class Kind(enum.Enum):
    """What a property claims.

    ALWAYS: the predicate holds in every reachable state (an invariant).
    SOMETIMES: the predicate holds in at least one reachable state; a complete run that never
        reaches one reports the property *vacuous* (the checker proved nothing interesting).
    TRANSITION: the predicate holds on every explored step ``(state, action, next_state)``.
    EVENTUALLY: every fair behaviour from an initial state reaches a state where the predicate
        holds (TLA+ ``<>P``). Checked by the local engine on the explored state graph.
    LEADS_TO: whenever ``predicate`` (P) holds, ``target`` (Q) holds then or later on every fair
        behaviour (TLA+ ``P ~> Q``). Local engine only.
    """

    ALWAYS = "always"
    SOMETIMES = "sometimes"
    TRANSITION = "transition"
    EVENTUALLY = "eventually"
    LEADS_TO = "leads-to"

    @property
    def is_liveness(self) -> bool:
        return self in (Kind.EVENTUALLY, Kind.LEADS_TO)


@dataclass(frozen=True)
class Property:
    """A named property of a model: plain data, as in Stateright.

    ``predicate`` takes a state (ALWAYS, SOMETIMES, EVENTUALLY) or ``(state, action, next_state)``
    (TRANSITION) and returns a bool. ``describe``, when given, turns a failing state (or step)
    into a short text naming the values that failed it; traces print it under the last state.
    ``default``: checked when a run names no properties; a property that is False here (a literal
    form kept for reference, an expensive check) runs only when named, as in TLC's configuration.
    ``target``: the Q of a LEADS_TO property (``predicate`` is its P); None for other kinds.
    """

    name: str
    kind: Kind
    predicate: Callable[..., bool]
    doc: str = ""
    describe: Callable[..., str] | None = field(default=None, compare=False)
    default: bool = True
    target: Callable[[Any], bool] | None = field(default=None, compare=False)

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

    @classmethod
    def eventually(cls, name: str, predicate: Callable[[Any], bool], doc: str = "", describe=None,
                   default: bool = True) -> Property:
        """``<>P``: every fair behaviour reaches a state where ``predicate`` holds."""
        return cls(name, Kind.EVENTUALLY, predicate, doc, describe, default)

    @classmethod
    def leads_to(cls, name: str, trigger: Callable[[Any], bool], target: Callable[[Any], bool], doc: str = "",
                 describe=None, default: bool = True) -> Property:
        """``P ~> Q``: from every state where ``trigger`` holds, every fair behaviour reaches a state
        (that one or a later one) where ``target`` holds."""
        return cls(name, Kind.LEADS_TO, trigger, doc, describe, default, target)


@runtime_checkable
class Model(Protocol[S, A]):
    """What the explorer needs from a model. Orders must be deterministic: the same model gives
    the same initial states and the same successors in the same order in every process.

    Optional methods, found by name: ``within_bounds(state) -> bool``, ``canonical(state) -> state``
    (symmetry representative), ``state_view(state) -> dict`` (named fields for traces),
    ``read(state) -> object`` (the state as users' own properties receive it, read by name:
    ``isrcheck.explorer.extra``), and
    ``pack(state) -> hashable`` with ``unpack(packed) -> state`` (a compact exact encoding the
    local engine stores instead of states; see ``packing``), and
    ``signals(state) -> dict[str, Any]``: what an operator's dashboard would show in that state
    (for a replicated log: who leads, ISR size, under-replication, follower lag). Signals are
    derived from the state, never part of it: traces print them as one line per state
    (``[signals] leader 1 | ISR 2/3 | under-replicated | lag r2=1``) and ITF JSON carries them in
    each state's ``#meta``, so replay and state comparison ignore them. Keys are short words;
    values are ints, strings, bools (True shows the key alone, False hides it), None (shown
    ``-``), lists, or flat dicts (shown ``k=v k=v``). For liveness: ``fairness() -> dict[str, str]``
    and ``action_family(action) -> str`` (see the module docstring). ``property_hint(name) -> str |
    None``: why the model has no property ``name`` and what would add it ("--acks 1 adds
    AckedRecordNotLost"), appended to the refusal of a name a run asks for (``selection``).
    and ``action_family(action) -> str`` (see the module docstring).
    ``field_docs() -> dict[str, str]``: one line per ``state_view`` key saying what the field
    means, shown beside the field on the HTML page and under ``--explain`` in text traces (a
    broker's or replica's copy, ``replicaState.2.hw``, takes the description of ``replicaState.hw``).

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

    ``swimlanes() -> list[str]`` with ``swimlane(action, before, after) -> dict``, optional: the
    whole trace as a space-time view on the same page, one lane per name (name them as the
    picture's lanes, so a record the violation names is followed across them), one row per step::

        {"lane": "replica 2", "label": "fetch",             # who acts, and a short word for it
         "send": [{"id": "LeaderAndIsr 1", "label": "...", "from": "controller"}],  # messages sent
         "receive": ["LeaderAndIsr 1"],                     # ids of messages sent in earlier rows
         "arrows": [{"from": "replica 1", "to": "replica 2", "label": "record 0"}]}  # within the row

    A received id is drawn as an arrow from the row (and lane) that last sent it.

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


def field_docs(model: Any) -> dict[str, str]:
    """The model's one-line description of each ``state_view`` key, or {} when it has none."""
    fn = getattr(model, "field_docs", None)
    return {} if fn is None else {str(k): str(v) for k, v in fn().items()}


def canonical_fn(model: Any) -> Callable[[Any], Any] | None:
    """The model's symmetry representative function, or None when the model has none."""
    return getattr(model, "canonical", None)


def packing(model: Any) -> tuple[Callable[[Any], Any] | None, Callable[[Any], Any] | None]:
    """The model's ``(pack, unpack)`` pair, or ``(None, None)`` when it has not both.

    ``pack(state)`` returns a compact hashable value (the classic model: one int) that the local
    engine's exact store (and the parallel engine's frontier) keep instead of the state; ``unpack``
    turns it back.
    The contract: ``unpack(pack(s)) == s``, and ``pack(s) == pack(t)`` exactly when ``s == t``
    (an exact encoding, not a hash: two different states must never pack alike)."""
    pack, unpack = getattr(model, "pack", None), getattr(model, "unpack", None)
    if not callable(pack) or not callable(unpack):
        return None, None
    return pack, unpack


FAIRNESS_KINDS = ("weak", "strong")


def fairness(model: Any) -> dict[str, str]:
    """The model's declared fairness ``{family: "weak" | "strong"}`` (empty without ``fairness()``)."""
    fn = getattr(model, "fairness", None)
    if fn is None:
        return {}
    declared = dict(fn())
    bad = {f: k for f, k in declared.items() if k not in FAIRNESS_KINDS or not isinstance(f, str)}
    if bad:
        raise ContractError(
            f"fairness() must map action family names to 'weak' or 'strong'; got {bad!r:.200}"
        )
    return declared


_FIRST_WORD = re.compile(r"[\s(\[{<]")


def family_function(model: Any) -> Callable[[Any], str]:
    """The function from an action to its family name (see the module docstring)."""
    hook = getattr(model, "action_family", None)
    if hook is not None:
        return lambda action: str(hook(action))
    by_type: dict[type, str] = {}

    def family(action: Any) -> str:
        if isinstance(action, str):
            return _FIRST_WORD.split(action, 1)[0] or action
        kind = type(action)
        name = by_type.get(kind)
        if name is None:
            name = by_type[kind] = kind.__name__
        return name

    return family
