"""Bounded model checking by iterative deepening with z3.

The unrolling ``Init(s1) /\\ Next(s1, s2) /\\ ... /\\ Next(s{k-1}, sk)`` grows one transition per
round; at length ``k`` a fresh, preprocessed solver (or, with ``incremental``, one incremental
solver under an assumption literal) is asked whether some property fails in ``sk``. Lengths are
tried in increasing order, so the first trace found is a shortest one (as BFS's); when length ``k``
has none, "the properties hold in ``sk``" is asserted for good, which later rounds use as a lemma.
Replica symmetry is broken (``isrcheck.explorer.symbolic.symmetry``) when the model declares it, and adjacent
independent steps are taken in one order only (``isrcheck.explorer.symbolic.por``). Lengths
count states, the initial one included, as everywhere in isrcheck. Invariants proved at these
bounds (``assumed``: lemmas, ``isrcheck.explorer.symbolic.bmc_lemmas``) are asserted in every state.

A satisfying assignment is decoded into the explicit model's states and *replayed* through its
``successors``: each step must be an explicit step with the label the symbolic step carries, and
the last state must fail an explicit property. Otherwise the symbolic encoding disagrees with the
explicit model: ``EncodingError`` (exit status 4), never a trace shown as real.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import z3
from isrcheck.explorer.progress import Progress, Silent
from isrcheck.explorer.result import Step, Trace, Violation
from isrcheck.explorer.symbolic.induction import check
from isrcheck.explorer.symbolic.ops import BoundedZ3Ops
from isrcheck.explorer.symbolic.por import footprints, independent_pairs, ordering
from isrcheck.explorer.symbolic.relation import transition, z3_value
from isrcheck.explorer.symbolic.result import EncodingError, SymbolicResult, select_symbolic
from isrcheck.explorer.symbolic.symmetry import breaking

# Each length's query on a fresh solver, preprocessed: the transition formula is functional (every
# next-state variable equals an if-then-else of the current ones), so solve-eqs substitutes the
# intermediate states away and elim-uncnstr drops what nothing constrains before bit-blasting.
# Measured 4-5 times faster per length than one incremental solver on kip320-first-try 3/2/2/2
# (docs/symbolic.md); the repeated work of the shorter lengths is small beside the last one.
PREPROCESS = ("simplify", "propagate-values", "solve-eqs", "elim-uncnstr", "simplify", "max-bv-sharing",
              "bit-blast", "sat")


def bmc(
    sym: Any,
    *,
    depth: int,
    properties: Sequence[str] | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
    width: int | None = None,
    symmetry: bool = True,
    incremental: bool = False,
    por: bool = True,
    assumed: Mapping[str, Callable] | None = None,
) -> SymbolicResult:
    """Is there a trace of at most ``depth`` states that violates one of ``properties``?

    timeout: seconds per solver call (z3's ``timeout``); a call that runs out answers unknown.
    width: bits of the signed bit-vectors that hold the model's ints; default the symbolic model's
        ``int_bits`` (its bounds keep every value and each value plus or minus one in range), and
        mathematical Ints when it has none.
    symmetry: break the symmetry of interchangeable replicas when the model declares it
        (``isrcheck.explorer.symbolic.symmetry``; the same shortest lengths, fewer traces to refute).
    incremental: one incremental solver for all lengths (each length under an assumption literal)
        instead of a fresh, preprocessed solver per length (``PREPROCESS``; the default).
    por: order adjacent independent steps (``isrcheck.explorer.symbolic.por``; the same shortest lengths).
    assumed: invariants proved at these bounds (``isrcheck.explorer.symbolic.bmc_lemmas``), asserted
        with the model's ``type_ok`` in every state of the unrolling: they hold in every reachable
        state, so no real trace is dropped, and each length has fewer paths to refute.
    """
    progress = progress or Silent()
    names, props = select_symbolic(sym, properties)
    width = width or getattr(sym, "int_bits", None)
    ops = BoundedZ3Ops(width=width)
    # Bounded ints as small signed bit-vectors, bit-blasted to z3's SAT solver: measured several
    # times faster than linear integer arithmetic on these unrollings.
    fresh = width is not None and not incremental

    def new_solver() -> Any:
        solver = z3.Then(*PREPROCESS).solver() if fresh else z3.SolverFor("QF_BV") if width else z3.Solver()
        if timeout is not None:
            solver.set("timeout", max(1, int(timeout * 1000)))
        return solver

    solver = new_solver()
    unrolling: list[Any] = []  # every formula of the unrolling so far (a fresh solver gets them all)

    def add(formula: Any) -> None:
        unrolling.append(formula)
        if not fresh:
            solver.add(formula)

    type_ok = getattr(sym, "type_ok", None) if assumed else None

    def assume(v: Any) -> None:
        # Proved invariants hold in every reachable state: asserting them in each state keeps every
        # real trace (and so the shortest violation), and cuts the unreachable paths a length refutes.
        if type_ok is not None:
            add(type_ok(ops, v))
        for fn in (assumed or {}).values():
            add(fn(ops, v))

    start = time.monotonic()
    states = [sym.variables(ops, "s1")]
    acts: list[Any] = []
    labels: list[list[str]] = []  # per transition: the step label of each value of its act variable
    pairs: list[list[int]] | None = None  # independent step numbers (partial-order reduction)
    add(sym.init(ops, states[0]))
    assume(states[0])
    result = SymbolicResult("bmc", "no violation", names, depth=0)
    try:
        for k in range(1, depth + 1):
            if k > 1:
                states.append(sym.variables(ops, f"s{k}"))
                acts.append(ops.step_var(f"act{k}"))
                params: list[tuple] = []
                formula, step_labels = transition(sym, ops, states[-2], states[-1], acts[-1], params)
                labels.append(step_labels)
                add(formula)
                assume(states[-1])
                if symmetry:
                    add(breaking(sym, ops, states[-2], acts[-1], step_labels, params))
                if por and len(acts) >= 2:
                    if pairs is None:
                        pairs = independent_pairs(footprints(sym, ops, sym.variables(ops, "footprint")))
                        if len(pairs) != len(step_labels):
                            raise EncodingError("the step instances differ between transitions")
                    add(ordering(ops, acts[-2], acts[-1], pairs))
            bad = ops.or_(*(ops.not_(p(ops, states[-1])) for p in props))
            t0, cpu0 = time.monotonic(), time.process_time()
            if fresh:
                solver = new_solver()
                solver.add(*unrolling, bad)
                answer = solver.check()
            else:
                fails_here = z3.Bool(f"violated@{k}")
                solver.add(z3.Implies(fails_here, bad))
                # Under an assumption z3 answers a Ctrl-C "canceled", its time limit's reason too:
                # ``check`` tells them apart (a KeyboardInterrupt, below), else it read as "unknown".
                answer = check(solver, fails_here, timeout=timeout)
            took = time.monotonic() - t0
            result.stats.setdefault("solver_seconds", []).append(round(took, 3))
            # CPU as well as wall: on a shared machine the wall time of a length is mostly waiting.
            result.stats.setdefault("cpu_seconds", []).append(round(time.process_time() - cpu0, 3))
            # The SAT solver's conflicts: the work per length, the same on a loaded machine (where
            # BMC's time goes on deep unrollings: docs/kraft.md#bmc-and-prove-on-the-kraft-family).
            result.stats.setdefault("sat_conflicts", []).append(_conflicts(solver))
            if answer == z3.unsat:
                result.depth = k
                progress.message(f"bmc: no violation in traces of {k} states ({took:.2f} s, "
                                 f"{result.stats['cpu_seconds'][-1]:.2f} s CPU, {result.stats['sat_conflicts'][-1]:,} "
                                 f"SAT conflicts; {time.monotonic() - start:.1f} s in all)")
                # A first violation is searched for: the properties hold in every shorter trace.
                add(z3.Not(bad))
                continue
            if answer == z3.unknown:
                reason = solver.reason_unknown()
                # Ctrl-C inside a solver call reaches z3 first, which stops and answers unknown.
                result.verdict = "interrupted" if "interrupted" in reason else "unknown"
                result.reason = f"the solver gave up at length {k}: {reason}"
                break
            progress.message(f"bmc: a violation in a trace of {k} states ({took:.2f} s); decoding and replaying it")
            result.verdict = "violation"
            result.depth = k
            result.violations.append(_replayed(sym, ops, solver.model(), states, acts, labels, names))
            break
    except KeyboardInterrupt:
        result.verdict = "interrupted"
    result.elapsed = time.monotonic() - start
    return result


def _conflicts(solver: Any) -> int:
    """Conflicts of the solver's last check (the SAT core's after bit-blasting, else the SMT core's)."""
    stats = solver.statistics()
    keys = set(stats.keys())
    key = "sat conflicts" if "sat conflicts" in keys else "conflicts" if "conflicts" in keys else None
    return int(stats.get_key_value(key)) if key else 0


def _replayed(sym: Any, ops: Any, model: Any, states: list, acts: list, labels: list, names: list[str]) -> Violation:
    """The satisfying assignment as an explicit trace, checked step by step against the model."""
    value = z3_value(model)
    try:
        decoded = [sym.decode(ops, value, v) for v in states]
    except ValueError as exc:
        raise EncodingError(f"the solver's trace does not decode into states of the explicit model: {exc}") from None
    taken = [step_labels[value(a)] for a, step_labels in zip(acts, labels, strict=True)]
    return replay_decoded(sym.explicit, decoded, taken, names)


def replay_decoded(explicit: Any, decoded: list, labels: list[str], names: list[str]) -> Violation:
    """Replay decoded states through the explicit ``successors``; the violation the last one shows."""
    if decoded[0] not in list(explicit.init_states()):
        raise EncodingError("the solver's first state is not an initial state of the explicit model")
    steps = [Step(None, decoded[0])]
    for i, (label, target) in enumerate(zip(labels, decoded[1:], strict=True), start=2):
        offered = [(a, t) for a, t in explicit.successors(steps[-1].state) if t == target]
        match = next(((a, t) for a, t in offered if type(a).__name__ == label), None)
        if match is None:
            others = ", ".join(repr(a) for a, _ in offered) or "no step at all"
            raise EncodingError(
                f"state {i} of the solver's trace: the symbolic step {label} leads where the explicit model "
                f"goes by {others}; the symbolic relation disagrees with the explicit steps")
        steps.append(Step(*match))
    last = steps[-1].state
    by_name = {p.name: p for p in explicit.properties()}
    failing = [name for name in names if not by_name[name].predicate(last)]
    if not failing:
        raise EncodingError(f"the solver's trace ends in a state where {', '.join(names)} hold(s) in the explicit "
                            "model; the symbolic property disagrees with the explicit one")
    prop = by_name[failing[0]]
    detail = prop.describe(last) if prop.describe else ""
    return Violation(prop.name, "always", Trace(tuple(steps)), detail)
