"""The next-state relation of a ``SymbolicModel`` as one formula, and its successors of a
concrete state (how the equivalence with the explicit model is tested)."""

from __future__ import annotations

from typing import Any

import z3

from explorer.symbolic.ops import ConcreteOps, Ops


def transition(sym: Any, ops: Ops, v: Any, w: Any, act: Any = None) -> Any:
    """``Next(v, w)``: some step is enabled in ``v`` and ``w`` is its result. ``act`` (an Int
    variable), when given, is pinned to the index of the step taken, so a decoded trace names it."""
    disjuncts = []
    for index, step in enumerate(sym.steps()):
        ops.take_side()
        guard, nxt = step.fn(ops, v)
        side = ops.take_side()
        if nxt is None or ops.is_false(guard):
            continue
        parts = [guard, *side, sym.equal(ops, nxt, w)]
        if act is not None:
            parts.append(act == index)
        disjuncts.append(ops.and_(*parts))
    return ops.or_(*disjuncts)


def concrete_successors(sym: Any, state: Any, ops: ConcreteOps | None = None) -> list[tuple[str, Any]]:
    """(step label, next explicit state) for every enabled step instance of the symbolic relation
    evaluated on ``state`` (choices enumerated), in step order."""
    ops = ops or ConcreteOps()
    v = sym.encode(state)
    out = []
    for step in sym.steps():
        for guard, nxt in ops.all_runs(lambda step=step: step.fn(ops, v)):
            if guard and nxt is not None:
                out.append((step.label, sym.decode(ops, _identity, nxt)))
    return out


def solver_successors(sym: Any, ops: Ops, state: Any, limit: int = 1000) -> list[tuple[str, Any]]:
    """The same, by asking z3 for every solution ``w`` of ``Next(state, w)`` (blocking each
    decoded state found): slow, the cross-check that the z3 reading of the relation is the same."""
    v, w = sym.variables(ops, "cur"), sym.variables(ops, "nxt")
    act = z3.Int("act")
    solver = z3.Solver()
    concrete = sym.encode(state)
    solver.add(pin(sym, ops, v, concrete))
    solver.add(transition(sym, ops, v, w, act))
    labels = [s.label for s in sym.steps()]
    out = []
    while len(out) < limit and solver.check() == z3.sat:
        m = solver.model()
        value = z3_value(m)
        nxt = sym.decode(ops, value, w)
        out.append((labels[value(act)], nxt))
        solver.add(z3.Not(pin(sym, ops, w, sym.encode(nxt))))
    return out


def pin(sym: Any, ops: Ops, v: Any, concrete: Any) -> Any:
    """``v`` takes the concrete values (from ``sym.encode``): every int and bool, and each array
    at the positions the concrete tuple has (the rest is don't-care)."""
    return ops.and_(*_pin_parts(ops, v, concrete))


def _pin_parts(ops: Ops, term: Any, value: Any) -> list:
    if hasattr(value, "__dataclass_fields__"):
        return [p for k in value.__dataclass_fields__ for p in _pin_parts(ops, getattr(term, k), getattr(value, k))]
    if isinstance(value, list):
        return [p for t, x in zip(term, value, strict=True) for p in _pin_parts(ops, t, x)]
    if isinstance(value, tuple):
        return [ops.sel(term, o) == x for o, x in enumerate(value)]
    return [term == value]


def z3_value(model: Any):
    """A ``value(term)`` reading ints and bools out of a z3 model (completing don't-cares)."""

    def value(term: Any) -> Any:
        if isinstance(term, bool | int):
            return term
        got = model.eval(term, model_completion=True)
        if z3.is_true(got):
            return True
        if z3.is_false(got):
            return False
        return got.as_long()

    return value


def _identity(x: Any) -> Any:
    return x
