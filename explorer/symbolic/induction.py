"""Proofs by induction over the unbounded symbolic relation, and Houdini lemma discovery.

An invariant ``Inv`` (the target properties, the model's ``type_ok`` and the lemmas, as named
conjuncts) is inductive when ``Init => Inv`` and ``Inv(s) /\\ Next(s, t) => Inv(t)``; then it holds
in every reachable state, whatever the log lengths, record ids and epochs (the relation is the
model's ``unbounded=True`` encoding). Each conjunct is checked separately, so a failure names the
conjunct that broke. ``k``-induction assumes ``Inv`` on ``k`` consecutive states instead of one.
Conjuncts are checked in order, lemmas before targets, and a target is checked with the conjuncts
already shown preserved in this round assumed *after* the step as well (sound by induction over
that order: each follows from ``Inv`` before the step and the ones before it after). A target such
as StrongIsr then only has to follow from the lemmas after the step, which is much cheaper for the
solver than re-deriving them through the step.

Houdini (Flanagan and Leino, 2001): start from every candidate lemma and the targets; drop each
conjunct that fails initiation or consecution relative to the current set; repeat until nothing is
dropped. What survives is inductive; the targets are proved if they survive.

A counterexample to induction (CTI) is two states ``s -> t`` with ``Inv(s)`` and a conjunct false
in ``t``. It is decoded into the explicit model's states (an explicit model with bounds large
enough to hold them, from ``sym.explicit_for``), the step is replayed through its ``successors``
(an encoding error otherwise) and printed as a two-state trace. The solver is first asked for a
CTI with small values (easier to read), then without that restriction. A CTI is not a violation:
its first state satisfies the conjuncts but may be unreachable (the verdict is "counterexample to
induction", the command line's exit status 8). A target false in an initial state, or in a run of
fewer than ``k`` states (k-induction's base case), is a real violation: verdict "violation".

Each prover asks its queries in a z3 context of its own (``Prover.ctx``), the formulas built in
z3's shared main context translated into it. In the shared context a term's id is the order in
which the process first built it, and z3's search (quantifier instantiation, case splits) follows
those ids: the same query answered differently after other proofs in the process (4-induction's
base case on kip320 answered "(incomplete quantifiers)" in 1 run of 15 after unrelated terms were
built, and "fails" alone). Translated into a fresh context, a query's terms get the same ids
whatever ran before; with the fresh names of the prover's ``ops`` counted from 0 for it alone
(``own_names``: a count shared by the process gave the quantified offsets other names, and so
other hashes, in each later proof), its answer and its z3 resource count are the same in every
process, and the same on a Spark executor as on the driver (not yet after every history: a
pytest process that ran three other proof test files first gives the same query other term ids in
the prover's context, docs/symbolic.md).

A Ctrl-C inside a solver call makes z3 answer unknown; ``check`` tells it from the solver's limits
(with assumptions, the small-values query, z3 gives the same reason, "canceled", for both) and
raises KeyboardInterrupt: taken for a limit, the query was asked again (without small values, or
step by step) and the interrupt was lost. ``prove`` returns "interrupted" then.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from typing import Any

import z3
from isrcheck.explorer.progress import Progress, Silent
from isrcheck.explorer.result import Step, Trace, Violation
from isrcheck.explorer.symbolic.ops import UnboundedZ3Ops
from isrcheck.explorer.symbolic.relation import leaves, transition, z3_value
from isrcheck.explorer.symbolic.result import EncodingError, SymbolicResult, select_symbolic

SMALL = 4  # "small values" first: every int of a CTI state at most this
# z3 resource units for each check of one goal over every step before it is asked step by step
# (about 15 s of CPU per check on this machine kind, and a goal's query is two checks, small values
# first: 33.5 s CPU when it ran out at 3 replicas; most goals take well under a tenth of it).
SPLIT_BUDGET = 30_000_000


def own_names(ops: Any) -> Any:
    """``ops`` with its fresh names (quantified offsets, witnesses, choices) numbered from 0 for this
    prover alone, not by a count shared by the whole process: the same proof builds the same names
    whatever ran before. Sound: a prover's queries hold only terms its own ``ops`` built (the
    states, steps and conjuncts are all evaluated with it), so no two of its fresh names clash."""
    ops._ids = itertools.count()
    return ops


def check(solver: Any, *assumptions: Any, timeout: float | None = None, budget: int | None = None) -> Any:
    """``solver.check(*assumptions)``, a Ctrl-C inside it raising KeyboardInterrupt. ``timeout``
    (seconds) and ``budget`` (z3 resource units) are the limits the solver was given, if any.

    Inside a check, Ctrl-C reaches z3's handler, which stops the check and answers unknown: with the
    reason "interrupted from keyboard" without assumptions, but "canceled" with them (the small-values
    query), the reason its time limit (with assumptions) and resource limit give too. So "canceled"
    is a Ctrl-C unless a limit explains it: the resource count the check used reached ``budget``,
    or its time reached ``timeout``. Taken for a limit, the query was asked again (without small
    values, or step by step) and the interrupt was lost."""
    started = time.monotonic()
    before = _resources(solver)
    answer = solver.check(*assumptions)
    if answer != z3.unknown:
        return answer
    reason = solver.reason_unknown()
    if "interrupted" in reason:
        raise KeyboardInterrupt
    if reason == "canceled":
        spent = _resources(solver) - before
        if not (budget is not None and spent >= budget) and \
                not (timeout is not None and time.monotonic() - started >= 0.9 * timeout):
            raise KeyboardInterrupt
    return answer


def _resources(solver: Any) -> int:
    """z3's resource count of ``solver``'s context so far (it counts every check in the context)."""
    stats = solver.statistics()
    return stats.get_key_value("rlimit count") if "rlimit count" in stats.keys() else 0


class Prover:
    """Induction queries over one unbounded encoding, ``k`` steps deep."""

    splits = True  # a goal over every step past SPLIT_BUDGET is asked again step by step

    def parts(self, goal: Any) -> list:
        """The queries a goal is asked as: its top-level conjuncts (see ``consecution``)."""
        return _conjuncts(goal)

    def __init__(self, sym: Any, *, k: int = 1, timeout: float | None = None) -> None:
        self.sym = sym
        self.ops = own_names(UnboundedZ3Ops())
        self.k = k
        self.states = [sym.variables(self.ops, f"s{i}") for i in range(k + 1)]
        self.acts = [z3.Int(f"act{i}") for i in range(k)]
        self.labels = []
        self.timeout = timeout
        self.base: list[Any] = []  # the k steps and every state's type_ok, in each consecution query
        type_ok = getattr(sym, "type_ok", None)
        for i in range(k):
            formula, labels = transition(sym, self.ops, self.states[i], self.states[i + 1], self.acts[i])
            self.base.append(formula)
            self.labels.append(labels)
        for v in self.states:
            if type_ok is not None:
                self.base.append(type_ok(self.ops, v))
        self.ctx = z3.Context()  # this prover's own: its queries' term ids do not depend on the process's history
        self.base_here = self.here(self.base)
        self.solver = self._fresh()  # the last consecution query's solver (for reason_unknown)
        self.init_solver = z3.Solver(ctx=self.ctx)
        if timeout is not None:
            self.init_solver.set("timeout", max(1, int(timeout * 1000)))
        # The base case of k-induction: the first k states of every run from Init. The steps are
        # not asserted here but per state (``initiation``): a run may stop (no step enabled)
        # before k - 1 steps, and its states must be checked too.
        self.init_vars = [sym.variables(self.ops, f"init{i}") for i in range(k)]
        self.init_solver.add(*self.here([sym.init(self.ops, self.init_vars[0])]))
        self.init_steps = [transition(sym, self.ops, self.init_vars[i - 1], self.init_vars[i])[0]
                           for i in range(1, k)]

    def here(self, formulas: Sequence[Any]) -> list:
        """``formulas`` (built in z3's main context) translated into this prover's context."""
        return [z3.BoolVal(f, self.ctx) if isinstance(f, bool) else f.translate(self.ctx) for f in formulas]

    def _model(self, solver: Any) -> Any:
        """``solver``'s model, back in the main context, where the states' terms are evaluated."""
        return solver.model().translate(z3.main_ctx())

    def initiation(self, name: str, fn: Callable) -> str:
        """"holds" or "fails" or "unknown: reason" for ``Init => fn`` (for k-induction: ``fn``
        holds in the first ``k`` states of every run)."""
        # The i-th state after the i steps that reach it, not after all k - 1: asserting every step
        # left out the states of runs that stop early (a 4-induction "proved" a lemma false in a
        # reachable state at depth 2 where no step is enabled).
        reached = [z3.And(*self.init_steps[:i], z3.Not(fn(self.ops, v))) for i, v in enumerate(self.init_vars)]
        answer = check(self.init_solver, *self.here([z3.Or(*reached)]), timeout=self.timeout)
        if answer == z3.unsat:
            return "holds"
        return "fails" if answer == z3.sat else f"unknown: {self.init_solver.reason_unknown()}"

    def _fresh(self) -> z3.Solver:
        solver = z3.Solver(ctx=self.ctx)
        if self.timeout is not None:
            solver.set("timeout", max(1, int(self.timeout * 1000)))
        solver.add(*self.base_here)
        return solver

    def consecution(self, assumed: dict[str, Callable], name: str, fn: Callable, small: bool = True,
                    after: dict[str, Callable] | None = None):
        """(answer, z3 model or None): is ``fn`` false after ``k`` steps that keep ``assumed``?
        ``after``: conjuncts already shown preserved in this round, assumed on the last state too
        (sound: each of them follows from ``assumed`` and the ones before it, by the same check)."""
        # A fresh solver per query. One incremental solver for every query (earlier goals behind
        # literals) made later queries slower: WeakIsr after StrongIsr's 21 lemmas, KIP-320,
        # 2 replicas, took 45-114 s wall there and 1.5 s CPU alone; a solver scope per goal
        # (push/pop) fixed that but left TrueLeaderIsrIsQuorumIsr at 3 replicas without an answer
        # in 60 s, against 2 s CPU in a fresh solver.
        before = [f(self.ops, v) for v in self.states[:-1] for f in assumed.values()]
        last = [f(self.ops, self.states[-1]) for f in (after or {}).values()]
        # The goal's top-level conjuncts (StrongIsr's leader-member pairs, a lemma's replicas or
        # pairs) are asked one at a time: all unsat means the goal is preserved. At 3 replicas
        # CommittedOnQuorumIsr after BecomeFollowerAndTruncate had no answer in 150 s as one
        # query and took 0.1-2 s per pair (docs/proofs.md).
        for part in self.parts(fn(self.ops, self.states[-1])):
            # First the whole step relation within a deterministic budget (z3's resource limit,
            # not wall time, so the same query takes the same path on a loaded machine); past it,
            # one query per step (its act value): at 3 replicas, before a lemma was widened,
            # CommittedOnRequestIsrsAfterLaggingMember after BecomeFollowerAndTruncate had no answer
            # in 120 s over every step, and each step but one took 0.0-0.3 s (docs/proofs.md). Sound
            # either way: Next is the disjunction of the steps.
            answer, model = self._ask(before + last, part, small, SPLIT_BUDGET if self.k == 1 else None)
            if answer == z3.unknown and self.k == 1:
                for act in range(len(self.labels[0])):
                    answer, model = self._ask(before + last + [self.acts[0] == act], part, small, None)
                    if answer != z3.unsat:
                        return answer, model
                continue
            if answer != z3.unsat:
                return answer, model
        return z3.unsat, None

    def _ask(self, assumed: list, part: Any, small: bool, budget: int | None):
        """(answer, model or None) of ``assumed /\\ not part`` in a fresh solver, small values first."""
        self.solver = solver = self._fresh()
        if budget is not None:
            solver.set("rlimit", budget)
        solver.add(*self.here([*assumed, z3.Not(part)]))
        if small:
            bound = z3.Bool("small", self.ctx)
            solver.add(z3.Implies(bound, *self.here([_small(self.states[0])])))
            answer = check(solver, bound, timeout=self.timeout, budget=budget)
            if answer == z3.sat:
                return answer, self._model(solver)
        answer = check(solver, timeout=self.timeout, budget=budget)
        return answer, (self._model(solver) if answer == z3.sat else None)

    def _small_again(self) -> Any:
        """A model of the last query with every int of every state at most ``SMALL``, or None."""
        solver = self.solver
        solver.set("rlimit", 0)  # 0: no resource limit
        if check(solver, *self.here([_small(v) for v in self.states]), timeout=self.timeout) == z3.sat:
            return self._model(solver)
        return None

    def explicit_for(self, value: Callable[[Any], Any]) -> Any:
        """An explicit model large enough to hold the states ``value`` reads (unbounded: the
        symbolic model's ``explicit_for``)."""
        return self.sym.explicit_for(self.ops, value, self.states)

    def cti(self, model: Any, name: str, names: Sequence[str]) -> Violation:
        """The CTI in ``model`` as an explicit two-or-more-state trace, replayed."""
        value = z3_value(model)
        try:
            explicit = self.explicit_for(value)
        except ValueError as exc:
            # Past its budget the small-values query can answer unknown and the unconstrained one a
            # CTI too large for the explicit model to tabulate (which one once depended on the
            # solver's history in the process; a prover's own context and names make it the same
            # in every process now): ask the same query again for small values in every state,
            # without the budget.
            model = self._small_again()
            if model is None:
                raise EncodingError(f"the counterexample to induction is too large to replay ({exc}), and the "
                                    "solver finds none with small values") from None
            value = z3_value(model)
            explicit = self.explicit_for(value)
        try:
            decoded = [self.sym.decode(self.ops, value, v, explicit) for v in self.states]
        except ValueError as exc:
            raise EncodingError(f"the counterexample to induction does not decode: {exc}") from None
        steps = [Step(None, decoded[0])]
        for i, target in enumerate(decoded[1:]):
            label = self.labels[i][value(self.acts[i])]
            try:
                offered = explicit.successors(steps[-1].state)
            except Exception as exc:  # a state no run reaches may break the explicit model's own assumptions
                raise EncodingError(f"the explicit model cannot step from the counterexample to induction's state "
                                    f"({type(exc).__name__}: {exc}); the model's type_ok should exclude it") from None
            match = next(((a, t) for a, t in offered if t == target and type(a).__name__ == label), None)
            if match is None:
                raise EncodingError(f"the counterexample to induction's step {label} is not a step of the explicit "
                                    "model; the symbolic relation disagrees with it")
            steps.append(Step(*match))
        return Violation(name, "cti", Trace(tuple(steps)),
                         f"{name} held before the step (with {', '.join(names)}) and fails after it"), explicit


def _conjuncts(goal: Any) -> list:
    """The top-level conjuncts of ``goal`` (nested conjunctions flattened)."""
    if z3.is_and(goal):
        return [part for child in goal.children() for part in _conjuncts(child)]
    return [goal]


def _small(v: Any) -> Any:
    parts = []
    for x in leaves(v):
        if z3.is_int(x):
            parts.append(x <= SMALL)
    return z3.And(*parts)


def prove(
    sym: Any,
    *,
    properties: Sequence[str] | None = None,
    lemmas: dict[str, Callable] | None = None,
    houdini: bool = False,
    k: int = 1,
    timeout: float | None = None,
    progress: Progress | None = None,
    make_prover: Callable[..., Prover] | None = None,
) -> SymbolicResult:
    """Is the conjunction of the target ``properties`` and ``lemmas`` inductive (``k``-inductive)?
    With ``houdini``, lemmas that are not inductive relative to the rest are dropped until a fixed
    point (pass ``sym.lemmas()`` for the model's built-in templates); targets are never dropped.
    ``make_prover(sym, k=, timeout=)``: whose queries (default ``Prover``, the unbounded encoding;
    ``isrcheck.explorer.symbolic.bounded_induction.BoundedProver`` the configuration's bounds).
    A Ctrl-C ends the proof with the verdict "interrupted", inside a solver call or between two.
    """
    progress = progress or Silent()
    start = time.monotonic()
    names, props = select_symbolic(sym, properties)
    result = SymbolicResult("prove", "proved", names, depth=k)
    try:
        return _induction(sym, result, dict(zip(names, props, strict=True)), dict(lemmas or {}), houdini=houdini,
                          k=k, prover=(make_prover or Prover)(sym, k=k, timeout=timeout), progress=progress,
                          start=start)
    except KeyboardInterrupt:  # inside a solver call (``check``) or between two
        return _unknown(result, "interrupted (Ctrl-C)", start)


def _induction(sym: Any, result: SymbolicResult, targets: dict[str, Callable], candidates: dict[str, Callable], *,
               houdini: bool, k: int, prover: Prover, progress: Progress, start: float) -> SymbolicResult:
    """``prove``'s loop: each conjunct's initiation and consecution, Houdini's rounds, to a verdict."""
    current = {**candidates, **targets}
    dropped: list[str] = []
    while True:
        changed = False
        preserved: dict[str, Callable] = {}  # shown preserved in this round: assumed after the step
        for name in list(current):
            init = prover.initiation(name, current[name])
            if init.startswith("unknown"):
                return _unknown(result, f"initiation of {name}: {init}", start)
            if init == "fails":
                if name in targets:  # the base case failed: a real trace, not a CTI
                    result.verdict = "violation"
                    result.reason = base_case_failure(name, k)
                    result.elapsed = time.monotonic() - start
                    return result
                progress.message(f"prove: dropped {name} (false {base_case_where(k)})")
                dropped.append(name)
                result.stats.setdefault("false_initially", []).append(name)
                del current[name]
                preserved.clear()
                changed = True
                continue
            t0 = time.monotonic()
            # Only targets get the conjuncts after the step: for lemmas, the extra quantified
            # formulas made z3 slower (CommittedOnQuorumIsr: 2 s without, over 80 s with, KIP-320, 2 replicas).
            answer, model = prover.consecution(current, name, current[name],
                                               after=preserved if name in targets else None)
            took = time.monotonic() - t0
            if answer == z3.unknown:
                return _unknown(result, f"consecution of {name}: {prover.solver.reason_unknown()}", start)
            if answer == z3.unsat:
                progress.message(f"prove: {name} is preserved by every step ({took:.2f} s)")
                preserved[name] = current[name]
                continue
            if houdini and name not in targets:
                progress.message(f"prove: dropped {name} (not inductive relative to the rest, {took:.2f} s)")
                dropped.append(name)
                del current[name]
                preserved.clear()  # they were shown preserved with the dropped lemma assumed
                changed = True
                continue
            cti, explicit = prover.cti(model, name, list(current))
            result.verdict = "counterexample to induction"
            result.cti = cti
            result.stats["explicit"] = explicit
            result.lemmas = [n for n in current if n not in targets]
            result.stats["dropped"] = dropped
            result.elapsed = time.monotonic() - start
            return result
        if not changed:
            break
    result.lemmas = [n for n in current if n not in targets]
    result.stats["dropped"] = dropped
    result.elapsed = time.monotonic() - start
    return result


def base_case_where(k: int) -> str:
    """Where the base case looks, in words: "initially", or within a run of ``k`` states."""
    return "initially" if k == 1 else f"in a run of at most {k} states"


def base_case_failure(name: str, k: int) -> str:
    """The reason of a "violation" verdict: the target ``name`` fails in the base case, a state
    every run from an initial state can reach within ``k`` states (with ``k`` = 1, an initial state)."""
    if k == 1:
        return f"{name} fails in an initial state"
    return f"{name} fails in a run of at most {k} states from an initial state (the base case of {k}-induction)"


def _unknown(result: SymbolicResult, reason: str, start: float) -> SymbolicResult:
    # A Ctrl-C (``prove``'s KeyboardInterrupt) is the user's interrupt (exit 130), not the solver's
    # limit (exit 5); so is z3's own "interrupted from keyboard", should a solver not be quiet.
    result.verdict = "interrupted" if "interrupted" in reason else "unknown"
    result.reason = reason
    result.elapsed = time.monotonic() - start
    return result
