"""The symbolic counterpart of the model contract (``isrcheck.explorer.contract``).

A model offers symbolic checking by giving its explicit model a ``symbolic(unbounded=False)``
method, or by registering a factory ``f(explicit_model, *, unbounded) -> SymbolicModel`` in the
``isrcheck.symbolic`` entry-point group under the model's registered name. The explorer never
imports a concrete model.

A ``SymbolicModel`` describes the same transition system as its explicit model, over state
variables of z3 sorts, with every formula written against an ``Ops`` backend
(``isrcheck.explorer.symbolic.ops``) so one relation serves concrete evaluation, bounded model checking and
unbounded proofs:

``explicit``
    the explicit model it mirrors (decoded states are that model's states; traces are replayed
    through its ``successors`` and printed by its ``state_view``).
``variables(ops, name) -> V``
    fresh state variables (any container the model likes), named after ``name``.
``init(ops, v) -> formula``
    the initial-state predicate.
``steps() -> Sequence[SymStep]``
    the next-state relation as a disjunction of steps. ``SymStep.label`` is the type name of the
    explicit actions the step produces (``BecomeLeader``), so a decoded trace names its actions;
    ``SymStep.fn(ops, v) -> (guard, next_v)`` gives the enabling condition and the next state as
    terms over ``v`` (``next_v`` may be None when ``guard`` is plainly false). Existential choices
    inside a step use ``ops.choose``; their defining constraints are collected from ``ops.side``.
``equal(ops, v, w, exact=True) -> formula``
    ``v`` and ``w`` are the same state (``exact``: also in don't-care positions, used to pin the
    next state of a transition; otherwise the same explicit state).
``properties() -> dict[name, fn(ops, v) -> formula]``
    state invariants by the explicit model's property names.
``decode(ops, value, v) -> state``
    the explicit state whose values ``value(term)`` gives (z3 model evaluation, or identity on
    concrete values); may raise ``ValueError`` subclasses for values outside the explicit bounds.
``encode(state) -> V``
    an explicit state as concrete values (arrays as tuples), for ``ConcreteOps``.

Optional, for ``prove``: ``unbounded`` (bool attribute: bounds dropped), ``type_ok(ops, v)``
(well-formedness every reachable state has: an implicit lemma), ``lemmas() -> dict[name, fn]``
(built-in candidate lemmas for Houdini), ``explicit_for(states) -> model`` (an explicit model
large enough to show states found without bounds).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class SymStep:
    """One disjunct of the next-state relation, tagged with the explicit action type it makes."""

    label: str
    fn: Callable[[Any, Any], tuple[Any, Any]] = field(compare=False)
    params: tuple = ()


@runtime_checkable
class SymbolicModel(Protocol):
    explicit: Any

    def variables(self, ops: Any, name: str) -> Any: ...

    def init(self, ops: Any, v: Any) -> Any: ...

    def steps(self) -> Sequence[SymStep]: ...

    def equal(self, ops: Any, v: Any, w: Any, exact: bool = True) -> Any: ...

    def properties(self) -> dict[str, Callable[[Any, Any], Any]]: ...

    def decode(self, ops: Any, value: Callable[[Any], Any], v: Any) -> Any: ...

    def encode(self, state: Any) -> Any: ...


def symbolic_model(spec: str, explicit: Any, *, unbounded: bool = False) -> Any:
    """The symbolic model of ``explicit`` (built from model spec ``spec``), or a UserError."""
    from importlib.metadata import entry_points

    from isrcheck.explorer.errors import UserError

    fn = getattr(explicit, "symbolic", None)
    if callable(fn):
        return fn(unbounded=unbounded)
    eps = {ep.name: ep for ep in entry_points(group="isrcheck.symbolic")}
    if spec not in eps:
        raise UserError(
            f"model {spec!r} has no symbolic encoding: give its model a symbolic(unbounded=False) method "
            "returning an isrcheck.explorer.symbolic.contract.SymbolicModel, or register one in the "
            "isrcheck.symbolic entry-point group (see docs/symbolic.md)"
        )
    try:
        return eps[spec].load()(explicit, unbounded=unbounded)
    except ValueError as exc:
        raise UserError(f"model {spec!r} has no symbolic encoding for these options: {exc}") from None
