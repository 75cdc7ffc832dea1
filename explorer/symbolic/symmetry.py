"""Symmetry breaking for bounded model checking: of the traces that differ only by a renaming of
interchangeable processes (Kafka's replicas), the solver is shown one.

A symbolic model whose processes are interchangeable offers ``symmetric_replicas`` (how many) and
``swap_fixed(ops, v, i, j)``: a formula that implies swapping processes ``i`` and ``j`` leaves state
``v`` unchanged (it may be stronger than that: breaking is then applied less often, never wrongly).
Each step instance carries the processes it is for (``SymStep.params``), so swapping ``i`` and ``j``
maps step instance ``a`` to an instance ``τ(a)`` of the same step.

The rule, on every transition ``s -> t`` taken by step instance number ``a``: if ``s`` is fixed by
the swap ``τ = (i j)``, then ``τ(a) >= a``. Sound for finding a shortest violation of properties that
are themselves symmetric: take any trace; at the first transition that breaks the rule for some
``τ``, rename ``i`` and ``j`` in the whole suffix. The states before are unchanged, ``s`` is too
(fixed by ``τ``), the suffix is a trace again (the model is symmetric), every state keeps its
verdict, and the number of the step at that position strictly decreases; so finitely many renamings
give a trace of the same length that keeps the rule everywhere. In the initial state (every replica
alike) the rule makes the first controller step act on replica 1; later it cuts the traces that
differ only in which of two still-identical replicas acts first.

Abstracted away: symmetries other than permutations of the processes, and partial symmetries.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any


def swap(params: tuple, i: int, j: int) -> tuple:
    return tuple(j if p == i else i if p == j else p for p in params)


def breaking(sym: Any, ops: Any, v: Any, act: Any, labels: Sequence[str], params: Sequence[tuple]) -> Any:
    """The rule for one transition from ``v`` by step number ``act`` (``labels`` and ``params`` of
    each step number, from ``relation.transition``); true when the model declares no symmetry."""
    n = getattr(sym, "symmetric_replicas", 0)
    if n < 2 or not hasattr(sym, "swap_fixed"):
        return ops.true
    keys = list(zip(labels, params, strict=True))
    index = {key: a for a, key in enumerate(keys)}
    if len(index) != len(keys):
        return ops.true  # two step instances with the same replicas: cannot tell them apart
    parts = []
    for i, j in combinations(range(n), 2):
        later = [a for a, (label, p) in enumerate(keys) if index.get((label, swap(p, i, j)), a) < a]
        if later:
            parts.append(ops.implies(sym.swap_fixed(ops, v, i, j), ops.and_(*(act != a for a in later))))
    return ops.and_(*parts)
