"""Induction over the bounded encoding: invariants proved for one configuration, at any trace length.

``isrcheck prove --bounded`` asks ``prove``'s queries (``isrcheck.explorer.symbolic.induction``)
of the relation BMC unrolls (``BoundedZ3Ops``: the configuration's own bounds, ints as small
bit-vectors, the solver preprocessed and bit-blasted as ``bmc.PREPROCESS`` says) instead of the
unbounded one (z3 arrays and quantifiers). That relation is the explicit model's: its reachable
states are exactly those BFS visits (the symbolic equivalence tests). So when initiation holds and
every conjunct is preserved by every step from states where all of them (and the model's
``type_ok``) hold, the conjunction holds in every reachable state of *this* configuration (these
replicas, records, epochs, fencings, crashes), whatever the length of the trace: what no BMC
length, however long, can contradict. It says nothing of other bounds (a fourth replica, a second
record); ``prove`` without ``--bounded`` does, when it answers.

What is abstracted: nothing of the configuration; what is left out is the trace length. Each
consecution query is one conjunct against all of them assumed (one query per conjunct: much faster
than one for the conjunction), small enough to answer in milliseconds to seconds where the
unbounded queries of the same lemmas took minutes (docs/proofs.md, "Proofs at the configuration's
own bounds").

A counterexample to induction is two states of the explicit model itself (the bounded encoding
decodes to the explicit tuple directly, no larger model is needed), the step replayed through its
``successors``. ``k``-induction assumes the conjuncts on ``k`` consecutive states that are pairwise
distinct (a shortest path to a violation repeats no state, so this stays sound and makes
k-induction complete for a finite configuration at a large enough ``k``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import z3
from isrcheck.explorer.progress import Progress
from isrcheck.explorer.symbolic.bmc import PREPROCESS
from isrcheck.explorer.symbolic.induction import Prover, check, own_names, prove
from isrcheck.explorer.symbolic.ops import BoundedZ3Ops
from isrcheck.explorer.symbolic.relation import transition
from isrcheck.explorer.symbolic.result import SymbolicResult


class BoundedProver(Prover):
    """``Prover``'s queries over the bounded encoding (the model built with ``unbounded=False``)."""

    def __init__(self, sym: Any, *, k: int = 1, timeout: float | None = None) -> None:
        if getattr(sym, "unbounded", False):
            raise ValueError("BoundedProver needs the bounded symbolic model (built with unbounded=False)")
        self.sym = sym
        self.width = getattr(sym, "int_bits", None)
        self.ops = own_names(BoundedZ3Ops(width=self.width))
        self.k = k
        self.timeout = timeout
        self.states = [sym.variables(self.ops, f"s{i}") for i in range(k + 1)]
        self.acts = [self.ops.step_var(f"act{i}") for i in range(k)]
        self.labels = []
        self.base: list[Any] = []
        type_ok = getattr(sym, "type_ok", None)
        for i in range(k):
            formula, labels = transition(sym, self.ops, self.states[i], self.states[i + 1], self.acts[i])
            self.base.append(formula)
            self.labels.append(labels)
        for v in self.states:
            if type_ok is not None:
                self.base.append(type_ok(self.ops, v))
        if k > 1:  # a path with a repeated state is never a shortest one to a violation
            for i in range(k + 1):
                for j in range(i + 1, k + 1):
                    self.base.append(self.ops.not_(sym.equal(self.ops, self.states[i], self.states[j], exact=False)))
        self.ctx = z3.Context()  # its own, as ``Prover``'s: answers that do not depend on the process's history
        self.base_here = self.here(self.base)
        self.solver = self._fresh()
        self.init_solver = self._fresh(base=False)
        self.init_vars = [sym.variables(self.ops, f"init{i}") for i in range(k)]
        self.init_solver.add(*self.here([sym.init(self.ops, self.init_vars[0])]))
        # Each state after its own steps only (``Prover.initiation``: runs may stop early).
        self.init_steps = [transition(sym, self.ops, self.init_vars[i - 1], self.init_vars[i],
                                      self.ops.step_var(f"initact{i}"))[0] for i in range(1, k)]

    def _fresh(self, base: bool = True) -> z3.Solver:
        # As BMC's: the relation is functional, so solve-eqs substitutes the next state away
        # before bit-blasting (the scratch induction measured 0.01-4 s a query this way).
        solver = z3.Then(*PREPROCESS, ctx=self.ctx).solver() if self.width else z3.Solver(ctx=self.ctx)
        if self.timeout is not None:
            solver.set("timeout", max(1, int(self.timeout * 1000)))
        if base:
            solver.add(*self.base_here)
        return solver

    splits = False  # no resource budget, no query per step: each query is small already

    def parts(self, goal: Any) -> list:
        """One query for the whole conjunct: its unrolled parts share the bit-blasted relation."""
        return [goal]

    def consecution(self, assumed: dict[str, Callable], name: str, fn: Callable, small: bool = True,
                    after: dict[str, Callable] | None = None):
        """(answer, z3 model or None): is ``fn`` false after ``k`` steps that keep ``assumed``?"""
        before = [f(self.ops, v) for v in self.states[:-1] for f in assumed.values()]
        last = [f(self.ops, self.states[-1]) for f in (after or {}).values()]
        return self._ask(before + last, fn(self.ops, self.states[-1]), small, None)

    def _ask(self, assumed: list, part: Any, small: bool, budget: int | None):
        """(answer, model or None) of ``assumed /\\ not part`` in a fresh, preprocessed solver (the
        values are small already: no first query for small ones)."""
        self.solver = solver = self._fresh()
        solver.add(*self.here([*assumed, self.ops.not_(part)]))
        answer = check(solver, timeout=self.timeout)
        return answer, (self._model(solver) if answer == z3.sat else None)

    def explicit_for(self, value: Callable[[Any], Any]) -> Any:
        """The bounded encoding decodes into the configuration's own explicit model."""
        return self.sym.explicit


def prove_bounded(
    sym: Any,
    *,
    properties: Sequence[str] | None = None,
    lemmas: dict[str, Callable] | None = None,
    houdini: bool = False,
    k: int = 1,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> SymbolicResult:
    """``prove``'s loop (lemmas then targets, Houdini, the CTI decoded and replayed) over the
    bounded encoding of ``sym`` (a symbolic model built with ``unbounded=False``)."""
    result = prove(sym, properties=properties, lemmas=lemmas, houdini=houdini, k=k, timeout=timeout,
                   progress=progress, make_prover=BoundedProver)
    result.stats["encoding"] = "bounded"
    return result
