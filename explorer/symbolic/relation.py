"""The next-state relation of a ``SymbolicModel`` as one formula, and its successors of a
concrete state (how the equivalence with the explicit model is tested)."""

from __future__ import annotations

from typing import Any

import z3
from isrcheck.explorer.symbolic.ops import ConcreteOps, Ops


def branches(sym: Any, ops: Ops, v: Any, params: list | None = None) -> list[tuple[str, Any, Any]]:
    """(label, guard, next variables) of every step instance enabled-looking in ``v``; with an
    enumerating backend a step with choices gives one branch per choice. ``params``, when given,
    receives each branch's ``SymStep.params`` (the replicas a step instance is for)."""
    out = []
    ops.begin_transition()
    for step in sym.steps():
        def run(step=step):
            ops.begin_step()
            ops.take_side()
            guard, nxt = step.fn(ops, v)
            return guard, nxt, ops.take_side()

        runs = ops.all_runs(run) if ops.enumerates else [run()]
        for guard, nxt, side in runs:
            if nxt is None or ops.is_false(guard):
                continue
            out.append((step.label, ops.and_(guard, *side), nxt))
            if params is not None:
                params.append(step.params)
    return out


def transition(sym: Any, ops: Ops, v: Any, w: Any, act: Any = None,
               params: list | None = None) -> tuple[Any, list[str]]:
    """``Next(v, w)`` in functional form: an Int ``act`` picks the step taken (so a decoded trace
    names it), that step's guard holds, and every variable of ``w`` is the picked step's update
    of it (an if-then-else over the steps that change it; the others leave it as in ``v``).
    Far smaller than a disjunction of whole-state equalities, and what makes deep BMC feasible.
    The second value lists the step label of each value of ``act``; ``params``, when given,
    receives the ``SymStep.params`` of each value of ``act`` (symmetry breaking reads them)."""
    act = ops.step_var(ops.fresh("act")) if act is None else act
    found = branches(sym, ops, v, params)
    if not found:
        return ops.false, []
    if getattr(ops, "width", None) and z3.is_bv(act) and len(found) >= 2 ** (act.size() - 1):
        raise ValueError(f"{len(found)} steps do not fit {act.size()}-bit step numbers")
    parts = [0 <= act, act < len(found)]
    parts += [ops.implies(act == i, guard) for i, (_, guard, _) in enumerate(found)]
    after = [leaves(nxt) for _, _, nxt in found]
    for k, (old, new) in enumerate(zip(leaves(v), leaves(w), strict=True)):
        value = old
        for i, updated in enumerate(after):
            if not same_term(updated[k], old):
                value = ops.ite(act == i, updated[k], value)
        parts.append(new == value)
    return ops.and_(*parts), [label for label, _, _ in found]


def leaves(value: Any) -> list:
    """The terms of a state-variable container (dataclasses and lists, in field order)."""
    if hasattr(value, "__dataclass_fields__"):
        return [x for k in value.__dataclass_fields__ for x in leaves(getattr(value, k))]
    if isinstance(value, list | tuple):
        return [x for item in value for x in leaves(item)]
    return [value]


def same_term(a: Any, b: Any) -> bool:
    """``a`` is ``b`` (the same term or the same constant): a step leaves that variable alone."""
    if a is b:
        return True
    if z3.is_expr(a) and z3.is_expr(b):
        return a.eq(b)
    return isinstance(a, int | bool) and isinstance(b, int | bool) and a == b and type(a) is type(b)


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
    formula, labels = transition(sym, ops, v, w, act)
    solver.add(formula)
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
    at the positions the concrete tuple has (the rest is don't-care, as is a field whose concrete
    value is None: a model's history that the caller projects away)."""
    return ops.and_(*_pin_parts(ops, v, concrete))


def _pin_parts(ops: Ops, term: Any, value: Any) -> list:
    if value is None:
        return []
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
        if z3.is_bv_value(got):
            return got.as_signed_long()
        return got.as_long()

    return value


def _identity(x: Any) -> Any:
    return x
