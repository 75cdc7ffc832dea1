"""What ``bmc --lemma`` asserts, and when BMC may stop: lemmas proved at the configuration's bounds.

Before unrolling, the lemmas the user names are proved inductive *together*, by themselves, with
``prove --bounded``'s queries (``BoundedProver``: the relation BMC unrolls, the configuration's own
bounds, ``type_ok`` in each state): initiation, then for each lemma ``L(s) /\\ Next(s, t) /\\ not
lemma(t)`` unsatisfiable, ``L`` the conjunction of all of them. The targets are never assumed here,
so a lemma proved this way holds in every reachable state of this configuration whether or not a
target does; asserting it in every state of the unrolling drops no real trace, and a shortest
violation stays a shortest one. A lemma that is not proved (false initially, a counterexample to
induction, no answer in ``--timeout``) is never asserted: without ``houdini`` the caller refuses
the run naming each one and why (when the only lemmas not proved are ones the solver did not
answer for, the run is "unknown", exit 5, as a length it did not answer for would); with it,
Houdini drops those and asks again until the rest are proved together (what survives is inductive).

Completion: each target is then asked the same two queries relative to the proved lemmas (the
lemmas assumed before and after the step, the targets before it). Houdini over the targets alone
keeps those that are inductive together with the lemmas; each of those holds at every length, so
BMC need not unroll for it, and when every target is one, BMC ends with "no violation at any
length". This is k-induction's way of closing a bounded search (here k = 1, with strengthening
lemmas the user supplies), not a search for the lemmas.

What is abstracted: nothing of the configuration; the proofs say nothing of other bounds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import z3
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.progress import Progress, Silent
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.explorer.symbolic.bounded_induction import BoundedProver
from isrcheck.explorer.symbolic.relation import z3_value
from isrcheck.explorer.symbolic.result import SymbolicResult, select_symbolic


@dataclass
class LemmaProof:
    """``proved``: the lemmas proved inductive together (asserted in every state); ``not_proved``:
    each lemma left out and why; ``inductive``: the targets inductive with the proved lemmas (they
    hold at every length); ``seconds``: the lemma proof's and the targets' wall time."""

    proved: dict[str, Callable] = field(default_factory=dict)
    not_proved: dict[str, str] = field(default_factory=dict)
    inductive: list[str] = field(default_factory=list)
    lemma_seconds: float = 0.0
    target_seconds: float = 0.0
    lemma_cpu_seconds: float = 0.0


def prove_lemmas(sym: Any, lemmas: Mapping[str, Callable], *, houdini: bool, timeout: float | None = None,
                 progress: Progress | None = None, prover: BoundedProver | None = None) -> LemmaProof:
    """The lemmas that are inductive together at ``sym``'s bounds. Without ``houdini``, one round:
    every lemma is asked with all of them assumed, and each that fails is in ``not_proved`` (the
    caller must not assert any of them then: the others were proved assuming the failed ones).
    With ``houdini``, the failed ones are dropped and the rest asked again, to a fixed point."""
    progress = progress or Silent()
    prover = prover or BoundedProver(sym, timeout=timeout)
    start, cpu = time.monotonic(), time.process_time()
    out = LemmaProof()
    current = dict(lemmas)
    while current:
        failed = {}
        for name, fn in current.items():
            why = _not_inductive(prover, current, name, fn, after=None)
            if why:
                progress.message(f"bmc: lemma {name} not proved: {why}")
                failed[name] = why
        out.not_proved.update(failed)
        if not failed or not houdini:
            break
        current = {n: f for n, f in current.items() if n not in failed}
    if not out.not_proved or houdini:
        out.proved = current
    out.lemma_seconds = time.monotonic() - start
    out.lemma_cpu_seconds = time.process_time() - cpu
    return out


def inductive_targets(sym: Any, proof: LemmaProof, targets: Mapping[str, Callable], *,
                      timeout: float | None = None, progress: Progress | None = None,
                      prover: BoundedProver | None = None) -> list[str]:
    """The targets that are inductive together with ``proof.proved`` (Houdini over the targets;
    the lemmas, proved already, are assumed before and after the step)."""
    progress = progress or Silent()
    prover = prover or BoundedProver(sym, timeout=timeout)
    start = time.monotonic()
    current = dict(targets)
    while current:
        assumed = {**proof.proved, **current}
        failed = [name for name, fn in current.items()
                  if _not_inductive(prover, assumed, name, fn, after=proof.proved)]
        if not failed:
            break
        for name in failed:
            del current[name]
    for name in targets:
        progress.message(f"bmc: {name} is {'' if name in current else 'not '}inductive with the "
                         f"{len(proof.proved)} proved lemmas")
    proof.inductive = list(current)
    proof.target_seconds = time.monotonic() - start
    return proof.inductive


def _not_inductive(prover: BoundedProver, assumed: Mapping[str, Callable], name: str, fn: Callable,
                   after: Mapping[str, Callable] | None) -> str:
    """Why ``fn`` is not preserved with ``assumed`` (initiation, then consecution); "" when it is."""
    init = prover.initiation(name, fn)
    if init == "fails":
        return "false initially"
    if init != "holds":
        return f"no answer to its initiation ({init})"
    answer, model = prover.consecution(dict(assumed), name, fn, after=dict(after) if after else None)
    if answer == z3.unsat:
        return ""
    if answer == z3.sat:
        step = prover.labels[0][z3_value(model)(prover.acts[0])]
        return f"a counterexample to induction (broken by {step})"
    return f"no answer to its consecution ({prover.solver.reason_unknown()})"


def bmc_with_lemmas(sym: Any, lemmas: Mapping[str, Callable], *, depth: int, houdini: bool = False,
                    properties: list[str] | None = None, timeout: float | None = None,
                    progress: Progress | None = None, **options: Any) -> SymbolicResult:
    """``bmc`` with ``lemmas`` proved first and asserted in every state, and the targets that are
    inductive with them proved at any length (not unrolled). Refuses (``UserError``) when a lemma is
    not proved and ``houdini`` is off. ``options``: the rest of ``bmc``'s (symmetry, por, ...).

    The result's ``stats``: ``lemmas`` (asserted), ``lemmas_not_proved`` ({name: why}),
    ``inductive`` (targets proved at any length), ``any_length`` (every target is),
    ``lemma_seconds`` and ``target_seconds`` (the two proofs' wall time), ``lemma_cpu_seconds``."""
    progress = progress or Silent()
    names, props = select_symbolic(sym, properties)
    prover = BoundedProver(sym, timeout=timeout)
    progress.message(f"bmc: proving the {len(lemmas)} lemmas inductive at these bounds (one query each)")
    start = time.monotonic()
    try:
        # A Ctrl-C inside a query is a KeyboardInterrupt (``induction.check``), never an unknown
        # answer: taken for a lemma without an answer, the run went on with the next lemma (or, with
        # --houdini, dropped this one and unrolled) and ended with exit 5 minutes later.
        proof = prove_lemmas(sym, lemmas, houdini=houdini, timeout=timeout, progress=progress, prover=prover)
    except KeyboardInterrupt:
        return _interrupted_result(names, "while proving the lemmas", time.monotonic() - start)
    unanswered = {n: r for n, r in proof.not_proved.items() if r.startswith("no answer")}
    # Only when every lemma not proved is one the solver did not answer for: a lemma refuted (false
    # initially, a CTI) is bad input whatever the time limit, and the refusal names every lemma.
    if unanswered and len(unanswered) == len(proof.not_proved) and not houdini:
        # The solver's time limit (or an unknown answer) is not bad input: bmc's "unknown", exit 5,
        # as for a length the solver did not answer.
        result = SymbolicResult("bmc", "unknown", names, depth=0)
        result.reason = "; ".join(f"lemma {n}: {r}" for n, r in unanswered.items()) + \
            " (raise --timeout, or add --houdini to drop the lemmas the solver does not answer for)"
        result.stats.update(lemmas=[], lemmas_not_proved=dict(proof.not_proved), inductive=[], any_length=False,
                            lemma_unanswered=True,
                            lemma_seconds=round(proof.lemma_seconds, 3), target_seconds=0.0,
                            lemma_cpu_seconds=round(proof.lemma_cpu_seconds, 3))
        result.elapsed = proof.lemma_seconds
        return result
    if proof.not_proved and not houdini:
        why = "; ".join(f"{name}: {reason}" for name, reason in proof.not_proved.items()) + (
            " (for a lemma without an answer, raise --timeout)" if unanswered else "")
        raise UserError(f"{len(proof.not_proved)} of the {len(lemmas)} lemmas are not proved inductive at these "
                        f"bounds ({why}), and bmc asserts only proved ones; drop "
                        f"{'it' if len(proof.not_proved) == 1 else 'them'}, or add --houdini to keep the lemmas that "
                        "are inductive together")
    progress.message(f"bmc: {len(proof.proved)} lemmas proved inductive at these bounds "
                     f"({proof.lemma_seconds:.1f} s, {proof.lemma_cpu_seconds:.1f} s CPU); asserted in every state")
    try:
        inductive_targets(sym, proof, dict(zip(names, props, strict=True)), progress=progress, prover=prover)
    except KeyboardInterrupt:
        return _interrupted_result(names, "while asking whether the targets are inductive with the lemmas",
                                   time.monotonic() - start)
    left = [n for n in names if n not in proof.inductive]
    if left:
        # The inductive targets hold in every reachable state too: asserted, not checked again.
        assumed = {**proof.proved, **{n: p for n, p in zip(names, props, strict=True) if n in proof.inductive}}
        result = bmc(sym, depth=depth, properties=left, timeout=timeout, progress=progress, assumed=assumed,
                     **options)
    else:
        result = SymbolicResult("bmc", "no violation", [], depth=0)
    result.properties = names
    result.lemmas = list(proof.proved)
    result.stats.update(lemmas=list(proof.proved), lemmas_not_proved=dict(proof.not_proved),
                        inductive=list(proof.inductive), any_length=not left,
                        lemma_seconds=round(proof.lemma_seconds, 3), target_seconds=round(proof.target_seconds, 3),
                        lemma_cpu_seconds=round(proof.lemma_cpu_seconds, 3))
    result.elapsed += proof.lemma_seconds + proof.target_seconds
    return result


def _interrupted_result(names: list[str], where: str, elapsed: float) -> SymbolicResult:
    """Ctrl-C before any length was unrolled: bmc's "interrupted" (exit 130), with no lemma asserted."""
    result = SymbolicResult("bmc", "interrupted", names, depth=0)
    result.reason = f"interrupted {where}; no length was unrolled"
    result.stats.update(lemmas=[], lemmas_not_proved={}, inductive=[], any_length=False, lemma_unanswered=True)
    result.elapsed = elapsed
    return result
