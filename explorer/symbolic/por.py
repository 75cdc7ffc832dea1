"""Partial-order reduction for bounded model checking: of the traces that differ only in the order
of two adjacent independent steps, the solver is shown the one with the smaller step first.

Each step instance's footprint is read off its symbolic form (``footprints``): the state variables
its guard and its updates mention (reads) and those it changes (writes), over-approximated. Two
instances are independent when neither writes what the other reads or writes; then in any state
where both are enabled they stay enabled in either order and lead to the same state. The rule, on
consecutive transitions taking instances ``a`` then ``b``: not (``b < a`` and independent).

Sound for a *shortest* violation, together with symmetry breaking (``isrcheck.explorer.symbolic.symmetry``),
by induction on the length ``L``: take a first violation of length ``L``. Swapping an offending
pair keeps the trace valid and its last state; a middle state it changes cannot violate, or a
shorter violation would exist, which the refuted shorter lengths exclude. Renaming replicas in a
suffix keeps every verdict. Both moves make the sequence of step numbers lexicographically smaller,
so finitely many of them give a trace of length ``L`` that keeps both rules.

Abstracted away: independence that depends on the state (two steps that commute only in some
states are treated as dependent).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3
from isrcheck.explorer.symbolic.relation import branches, leaves, same_term


def _constants(terms: Sequence[Any]) -> set[int]:
    """The ids of the uninterpreted constants occurring in ``terms`` (a DAG walk)."""
    found: set[int] = set()
    seen: set[int] = set()
    stack = [t for t in terms if z3.is_expr(t)]
    while stack:
        t = stack.pop()
        key = t.get_id()
        if key in seen:
            continue
        seen.add(key)
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.add(key)
        else:
            stack.extend(t.children())
    return found


def footprints(sym: Any, ops: Any, v: Any) -> list[tuple[frozenset[int], frozenset[int]]]:
    """(reads, writes) of every step instance, as positions in ``leaves(v)``, in the order of
    ``relation.transition``'s step numbers. ``v`` must be fresh variables (a bounded backend)."""
    cur = leaves(v)
    where = {t.get_id(): i for i, t in enumerate(cur) if z3.is_expr(t)}
    out = []
    for _, guard, nxt in branches(sym, ops, v):
        new = leaves(nxt)
        writes = {i for i, (old, upd) in enumerate(zip(cur, new, strict=True)) if not same_term(upd, old)}
        mentioned = _constants([guard, *(new[i] for i in writes)])
        reads = {where[c] for c in mentioned if c in where}
        out.append((frozenset(reads), frozenset(writes)))
    return out


def independent_pairs(prints: Sequence[tuple[frozenset[int], frozenset[int]]]) -> list[list[int]]:
    """For each step number ``b``, the larger step numbers ``a`` independent of it."""
    out = []
    for b, (rb, wb) in enumerate(prints):
        later = [a for a in range(b + 1, len(prints))
                 if not (prints[a][1] & (rb | wb)) and not (wb & prints[a][0])]
        out.append(later)
    return out


def ordering(ops: Any, first: Any, second: Any, pairs: Sequence[Sequence[int]]) -> Any:
    """The rule on two consecutive step numbers ``first`` then ``second``."""
    parts = [ops.implies(second == b, ops.and_(*(first != a for a in later))) for b, later in enumerate(pairs) if later]
    return ops.and_(*parts)
