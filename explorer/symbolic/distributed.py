"""A proof's solver queries asked elsewhere (Spark executors), with the local proof's result.

``isrcheck.explorer.symbolic.induction.prove`` asks its queries one after the other: for each
conjunct (lemmas, then targets) initiation, then consecution, one query per top-level part of the
conjunct and, past a resource budget, one per step. Most of them do not depend on each other's
answers, so they can be asked at once, on other machines. z3 objects do not pickle, so a query
travels as its inputs (``Query``: conjunct names, part, step) and the executor rebuilds the solver
from the model it already has (shipped once per run) and the ``ProofSetup`` (model spec, k,
timeout, the user's lemma file as text); ``answer_query`` runs there.

The driver (``prove_distributed``) keeps ``prove``'s sequential meaning exactly, so the result
(verdict, the conjunct that breaks, the lemmas kept and dropped, in the same order) is the local
proof's:

- A *wave* asks every remaining conjunct of a round at once, assuming none before it is dropped
  (its query assumes the current set; a target also assumes after the step the conjuncts before it
  in the round, as ``prove`` does). The answers are then read in ``prove``'s order; they are valid
  up to the first drop (Houdini, or a lemma false initially). After a drop the rest of the round is
  asked again in a new wave, against the smaller set. A proof without Houdini is one wave.
- A lemma's failure stays valid against any smaller set (fewer assumptions prove less), so Houdini
  does not ask it again; initiation does not depend on the set at all.
- A part whose query over every step runs out of its budget is split into one query per step, asked
  in a second round trip; the part's answer is the first step, in order, that is not unsat.
- A counterexample to induction is decoded and replayed where it was found, as ``prove`` does (a z3
  model cannot travel), and comes back as explicit states.

Nothing here imports pyspark or the explicit engines: ``ask_many`` is any function from a list of
queries to their answers in the same order (Spark's is built by the command line).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import z3
from isrcheck.explorer.progress import Progress, Silent
from isrcheck.explorer.symbolic.bounded_induction import BoundedProver
from isrcheck.explorer.symbolic.induction import SPLIT_BUDGET, Prover, _conjuncts, base_case_failure, base_case_where
from isrcheck.explorer.symbolic.ops import UnboundedZ3Ops
from isrcheck.explorer.symbolic.result import EncodingError, SymbolicResult, select_symbolic


@dataclass(frozen=True)
class ProofSetup:
    """What an executor needs besides the explicit model to rebuild a proof's solver: the model spec
    (for ``symbolic_model``), k, the per-call timeout, the user's lemma file as (path, text), and
    ``bounded``: the bounded encoding's queries (``prove --bounded``, ``BoundedProver``)."""

    spec: str
    k: int = 1
    timeout: float | None = None
    lemma_file: tuple[str, str] | None = None
    bounded: bool = False


@dataclass(frozen=True)
class Query:
    """One solver query by its inputs. ``kind`` "init": is ``name`` true in the first k states of
    every run. "cons": is part ``part`` of ``name`` preserved by k steps from states where every
    conjunct of ``assumed`` holds (``after``: also assumed on the last state); ``act`` None: over
    every step within ``SPLIT_BUDGET``, else over step number ``act`` alone. ``targets``: the names
    that stand for invariants (the others are lemmas). ``cti``: if the answer is sat, decode the
    counterexample to induction where it was found (a z3 model does not travel, and asking again
    elsewhere may answer unknown: quantifier instantiation depends on the process's history)."""

    kind: str
    name: str
    assumed: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    part: int = 0
    act: int | None = None
    targets: tuple[str, ...] = ()
    cti: bool = False


@dataclass(frozen=True)
class Answer:
    """``verdict``: for "init" holds, fails or unknown; for "cons" unsat (preserved), sat (broken),
    unknown, or split (over budget: ask each of ``acts`` steps). ``seconds``: solver wall time.
    ``cti``: (the decoded counterexample, the explicit model that holds it) when asked for;
    ``error``: why it did not decode or replay (an encoding error)."""

    verdict: str
    reason: str = ""
    seconds: float = 0.0
    acts: int = 0
    cti: Any = None
    error: str = ""


class _Solving:
    """A rebuilt proof on an executor: the symbolic model, its conjuncts by name, one Prover."""

    def __init__(self, setup: ProofSetup, explicit: Any) -> None:
        from isrcheck.explorer.symbolic.contract import symbolic_model

        sym = symbolic_model(setup.spec, explicit, unbounded=not setup.bounded)
        self.lemmas, self.invariants = conjunct_functions(sym, setup.lemma_file)
        make = BoundedProver if setup.bounded else Prover
        self.prover = make(sym, k=setup.k, timeout=setup.timeout)

    def fns(self, query: Query) -> dict[str, Callable]:
        """The conjuncts by name as ``query`` means them (its targets are invariants)."""
        return {**self.lemmas, **{n: self.invariants[n] for n in query.targets}}


_SOLVING: dict[ProofSetup, tuple[Any, _Solving]] = {}


def local_asker(setup: ProofSetup, explicit: Any) -> Callable[[list[Query]], list[Answer]]:
    """``ask_many`` answering in this process, with a solver rebuilt from ``setup`` as an executor
    rebuilds it: the distributed proof without Spark (tests, and the one-process baseline)."""
    solving: list[_Solving] = []

    def ask_many(queries: list[Query]) -> list[Answer]:
        if not solving:
            solving.append(_Solving(setup, explicit))
        return [ask(solving[0].prover, solving[0].fns(q), q) for q in queries]

    return ask_many


def conjunct_functions(sym: Any, lemma_file: tuple[str, str] | None) -> tuple[dict[str, Callable], dict[str, Callable]]:
    """(lemmas, invariants) a query may name: the built-in lemmas with the user's (which win over a
    built-in of the same name, as on the command line), and the invariants. A name can be both (the
    classic model's LogMatching): it is the invariant when the query lists it among its targets,
    as a target wins over a lemma of its name in ``prove``."""
    lemmas = dict(getattr(sym, "lemmas", dict)())
    if lemma_file is not None:
        path, source = lemma_file
        namespace: dict[str, Any] = {"__name__": "isrcheck_lemmas_shipped", "__file__": path}
        exec(compile(source, path, "exec"), namespace)  # the file the driver loaded, as text
        lemmas.update(namespace["LEMMAS"])
    return lemmas, dict(sym.properties())


def answer_query(setup: ProofSetup, ctx: Any, query: Query) -> Answer:
    """Answer ``query`` on an executor, whose run context ``ctx`` holds the explicit model. The
    solver is built once per Python worker and setup."""
    cached = _SOLVING.get(setup)
    if cached is None or cached[0] is not ctx.model:
        _SOLVING.clear()
        cached = _SOLVING[setup] = (ctx.model, _Solving(setup, ctx.model))
    solving = cached[1]
    return ask(solving.prover, solving.fns(query), query)


def ask(prover: Prover, fns: dict[str, Callable], query: Query) -> Answer:
    """Answer ``query`` with ``prover``, as ``Prover.initiation`` and ``Prover.consecution`` ask it."""
    started = time.monotonic()
    if query.kind == "init":
        init = prover.initiation(query.name, fns[query.name])
        verdict, _, reason = init.partition(": ")
        return Answer(verdict, reason, time.monotonic() - started)
    assumptions, part = assemble(prover, fns, query)
    budget = SPLIT_BUDGET if prover.splits and prover.k == 1 and query.act is None else None
    answer, model = prover._ask(assumptions, part, True, budget)
    seconds = time.monotonic() - started
    if answer == z3.unsat:
        return Answer("unsat", seconds=seconds)
    if answer == z3.sat:
        if not query.cti:
            return Answer("sat", seconds=seconds)
        try:
            return Answer("sat", seconds=seconds, cti=prover.cti(model, query.name, list(query.assumed)))
        except EncodingError as exc:
            return Answer("sat", seconds=seconds, error=str(exc))
    if budget is not None:
        return Answer("split", seconds=seconds, acts=len(prover.labels[0]))
    return Answer("unknown", str(prover.solver.reason_unknown()), seconds)


def assemble(prover: Prover, fns: dict[str, Callable], query: Query) -> tuple[list, Any]:
    """The assumptions and the goal part of a consecution query (``Prover.consecution``'s)."""
    ops, states = prover.ops, prover.states
    assumptions = [fns[n](ops, v) for v in states[:-1] for n in query.assumed]
    assumptions += [fns[n](ops, states[-1]) for n in query.after]
    if query.act is not None:
        assumptions.append(prover.acts[0] == query.act)
    return assumptions, prover.parts(fns[query.name](ops, states[-1]))[query.part]


def part_counts(sym: Any, fns: dict[str, Callable], names: Sequence[str]) -> dict[str, int]:
    """How many top-level parts each conjunct's goal has (each part is a query of its own); one
    for the bounded encoding (``BoundedProver.parts``: the whole conjunct is one query)."""
    if getattr(sym, "unbounded", True) is False:
        return dict.fromkeys(names, 1)
    ops = UnboundedZ3Ops()
    v = sym.variables(ops, "count")
    return {n: len(_conjuncts(fns[n](ops, v))) for n in names}


@dataclass
class _Outcome:
    """A conjunct's consecution: ``verdict`` unsat, sat or unknown; where it broke (part, act)."""

    verdict: str
    reason: str = ""
    part: int = 0
    act: int | None = None
    seconds: float = 0.0
    answer: Answer | None = None


def prove_distributed(
    sym: Any,
    *,
    ask_many: Callable[[list[Query]], list[Answer]],
    properties: Sequence[str] | None = None,
    lemmas: dict[str, Callable] | None = None,
    houdini: bool = False,
    k: int = 1,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> SymbolicResult:
    """``prove``'s result with its queries answered by ``ask_many`` (see the module docstring).
    ``lemmas`` must be those the executors rebuild by name (``conjunct_functions``); ``k`` and
    ``timeout`` those of their ``ProofSetup`` (the solver is theirs: here ``k`` is the result's depth)."""
    progress = progress or Silent()
    start = time.monotonic()
    names, props = select_symbolic(sym, properties)
    targets = dict(zip(names, props, strict=True))
    current = {**dict(lemmas or {}), **targets}
    tnames = tuple(names)
    parts = part_counts(sym, current, list(current))
    result = SymbolicResult("prove", "proved", names, depth=k)
    dropped: list[str] = []
    inits: dict[str, Answer] = {}
    failed: dict[str, frozenset[str]] = {}  # lemma -> a set it is not preserved under (nor under any subset)
    asked = _Queries(ask_many, parts, tnames, houdini)
    waves = 0
    while True:
        changed = False
        preserved: list[str] = []
        order = list(current)
        pos = 0
        while pos < len(order):
            # The wave's plan: walking on from ``pos``, which conjuncts will be dropped as far as
            # is known (false initially, or not preserved under a superset of the set they will be
            # checked against), and so which set each of the others is checked against.
            plan = _plan(order[pos:], list(current), list(preserved), targets, inits, failed if houdini else {})
            goals = [(n, *plan[n]) for n in order[pos:] if plan[n] is not None]
            asked.wave([n for n in order[pos:] if n not in inits], goals)
            waves += 1
            for n in order[pos:]:
                inits.setdefault(n, asked.init(n))
            for n, assumed, after in goals:  # every failure is a fact, whether or not this walk reaches it
                out = asked.outcome(n, assumed, after, resolve=False)
                if houdini and n not in targets and out is not None and out.verdict == "sat":
                    failed.setdefault(n, frozenset(assumed))
            surprise = None  # the position after a drop the plan did not foresee: the next wave starts there
            for p in range(pos, len(order)):
                name = order[p]
                init = inits[name]
                if init.verdict == "unknown":
                    return _finish(result, start, waves, asked.asked, verdict="unknown",
                                   reason=f"initiation of {name}: unknown: {init.reason}")
                if init.verdict == "fails":
                    if name in targets:  # the base case failed: a real trace, as ``prove`` says
                        return _finish(result, start, waves, asked.asked, verdict="violation",
                                       reason=base_case_failure(name, k))
                    progress.message(f"prove: dropped {name} (false {base_case_where(k)})")
                    _drop(name, current, dropped, preserved)
                    result.stats.setdefault("false_initially", []).append(name)
                    changed = True
                    if plan[name] is None:
                        continue
                    surprise = p + 1
                    break
                if plan[name] is None:  # not preserved under a superset of the current set: nor under it
                    progress.message(f"prove: dropped {name} (not inductive relative to the rest)")
                    _drop(name, current, dropped, preserved)
                    changed = True
                    continue
                out = asked.outcome(name, *plan[name])
                if out.verdict == "unknown":
                    return _finish(result, start, waves, asked.asked, verdict="unknown",
                                   reason=f"consecution of {name}: {out.reason}")
                if out.verdict == "unsat":
                    progress.message(f"prove: {name} is preserved by every step ({out.seconds:.2f} s of solver)")
                    preserved.append(name)
                    continue
                if houdini and name not in targets:
                    progress.message(f"prove: dropped {name} (not inductive relative to the rest)")
                    _drop(name, current, dropped, preserved)
                    changed = True
                    surprise = p + 1
                    break
                if out.answer.error:
                    raise EncodingError(out.answer.error)
                result.cti, result.stats["explicit"] = out.answer.cti
                result.lemmas = [n for n in current if n not in targets]
                result.stats["dropped"] = dropped
                return _finish(result, start, waves, asked.asked, verdict="counterexample to induction")
            pos = surprise if surprise is not None else len(order)
        if not changed:
            break
    result.lemmas = [n for n in current if n not in targets]
    result.stats["dropped"] = dropped
    return _finish(result, start, waves, asked.asked)


def _drop(name: str, current: dict[str, Any], dropped: list[str], preserved: list[str]) -> None:
    """Drop ``name`` as ``prove`` does (what was shown preserved with it assumed is no longer)."""
    dropped.append(name)
    del current[name]
    preserved.clear()


def _plan(names: Sequence[str], current: list[str], preserved: list[str], targets: dict[str, Any],
          inits: dict[str, Answer], failed: dict[str, frozenset[str]],
          ) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]] | None]:
    """For each of ``names`` in order: None if it will be dropped as far as is known (a lemma false
    initially, or not preserved under a superset of the set it will meet: fewer assumptions prove
    less), else the (assumed, after) its consecution query is asked with, assuming every other
    conjunct passes. Exactly the queries ``prove`` asks, as long as nothing unforeseen is dropped."""
    plan: dict[str, tuple[tuple[str, ...], tuple[str, ...]] | None] = {}
    for name in names:
        init = inits.get(name)
        if name not in targets and ((init is not None and init.verdict == "fails")
                                    or (name in failed and set(current) <= failed[name])):
            plan[name] = None
            current.remove(name)
            preserved.clear()
            continue
        plan[name] = (tuple(current), tuple(preserved) if name in targets else ())
        preserved.append(name)
    return plan


class _Queries:
    """The answers of a proof's queries so far, asked in batches through ``ask_many``."""

    def __init__(self, ask_many: Callable[[list[Query]], list[Answer]], parts: dict[str, int],
                 tnames: tuple[str, ...], houdini: bool) -> None:
        self.ask_many, self.parts, self.tnames = ask_many, parts, tnames
        self.houdini = houdini
        self.answers: dict[Query, Answer] = {}
        self.asked = 0

    def ask(self, queries: list[Query]) -> None:
        queries = [q for q in queries if q not in self.answers]
        if queries:
            self.answers.update(zip(queries, self.ask_many(queries), strict=True))
            self.asked += len(queries)

    def wave(self, inits: list[str], goals: list[tuple[str, tuple[str, ...], tuple[str, ...]]]) -> None:
        """Initiation of ``inits`` and every part of every goal (name, assumed, after), at once."""
        self.ask([Query("init", n, targets=self.tnames) for n in inits]
                 + [self.cons(n, assumed, after, part) for n, assumed, after in goals for part in range(self.parts[n])])

    def cons(self, name: str, assumed: tuple[str, ...], after: tuple[str, ...], part: int,
             act: int | None = None) -> Query:
        """A consecution query; a sat answer is decoded where it is found when it would be a CTI
        (a target's, or any conjunct's without Houdini, which drops lemmas instead)."""
        cti = name in self.tnames or not self.houdini
        return Query("cons", name, assumed, after, part, act, self.tnames, cti)

    def init(self, name: str) -> Answer:
        return self.answers[Query("init", name, targets=self.tnames)]

    def outcome(self, name: str, assumed: tuple[str, ...], after: tuple[str, ...], *,
                resolve: bool = True) -> _Outcome | None:
        """The goal's first part, in order, that is not unsat (of a part over budget: its first
        step that is not unsat, the steps asked now, at once). ``resolve`` False: None instead of
        asking the steps (a speculative query ``prove`` may never ask: not worth splitting)."""
        outcome = _Outcome("unsat")
        for part in range(self.parts[name]):
            whole = self.answers[self.cons(name, assumed, after, part)]
            outcome.seconds += whole.seconds
            if whole.verdict == "split":
                if not resolve:
                    return None
                steps = [self.cons(name, assumed, after, part, act) for act in range(whole.acts)]
                self.ask(steps)
                for act, q in enumerate(steps):
                    answer = self.answers[q]
                    outcome.seconds += answer.seconds
                    if answer.verdict != "unsat":
                        return _Outcome(answer.verdict, answer.reason, part, act, outcome.seconds, answer)
            elif whole.verdict != "unsat":
                return _Outcome(whole.verdict, whole.reason, part, None, outcome.seconds, whole)
        return outcome


def _finish(result: SymbolicResult, start: float, waves: int, queries: int, *, verdict: str | None = None,
            reason: str = "") -> SymbolicResult:
    if verdict is not None:
        result.verdict = verdict
        result.reason = reason
    result.stats["waves"] = waves
    result.stats["queries"] = queries
    result.elapsed = time.monotonic() - start
    return result
