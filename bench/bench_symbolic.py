"""BMC (z3) against BFS (the local engine) side by side, and proof times.

Each run is the ``isrcheck`` command a user would type, in a child process with a time cap; the
table shows wall and CPU seconds and how far each engine got (BFS: its last progress line when
stopped; BMC: the longest trace length refuted). Nothing asserts on time.

    .venv/bin/python bench/bench_symbolic.py                 # every group, 300 s cap per run
    .venv/bin/python bench/bench_symbolic.py --cap 120 --group beyond

Groups: ``catalogue`` (the holes at the sizes BFS handles: BMC must find the same lengths),
``durability`` (K2, K8, K9, K10 with their options), ``solver`` (BMC's solver strategies side by
side: a fresh preprocessed solver per length or one incremental solver, replica symmetry broken or
not), ``beyond`` (kip279 and kip320-first-try with 4 and 5 replicas and leader epochs 0..3),
``prove`` (LeaderInIsr by induction on KIP-320 at 2, 3 and 4 replicas; StrongIsr and WeakIsr at 2 and 3).
``split`` is not in ``all``: StrongIsr's consecution queries at ``--replicas`` (default 3), one per
conjunct and step type, each with ``--cap`` as its solver time limit, to find the slow one:

    .venv/bin/python bench/bench_symbolic.py --group split --cap 120 --conjunct CommittedOnQuorumIsr
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

from isrcheck.model.symbolic.lemmas import ISR_PROOF_LEMMAS, ISR_PROOF_LEMMAS_3

ISRCHECK = str(Path(sys.executable).with_name("isrcheck"))
LEMMAS = ["LeaderNamedByItsEpoch", "QuorumIsLastRequest", "TrueLeaderIsrIsQuorumIsr",
          "QuorumIsrIsLastRequestUntilAdopted", "RecordsWithinReplicaEpoch", "FollowerEpochAtMostLeader",
          "HighWatermarkWithinLog"]

CATALOGUE = [("truncate-to-hw", 2, 2, 12), ("kip101", 2, 2, 13), ("kip279", 3, 2, 12), ("kip320-first-try", 3, 2, 14)]
DURABILITY = [  # (id, options, invariant, depth)
    ("K9", ["--acks", "1"], "AckedRecordNotLost", 8),
    ("K8", ["--acks", "all", "--max-crashes", "1", "--stops", "crash", "--unclean-election", "any"],
     "AckedRecordNotLost", 10),
    ("K10", ["--acks", "all", "--max-crashes", "1", "--stops", "lossy"], "AckedRecordNotLost", 11),
    ("K10 min ISR 2", ["--acks", "all", "--min-insync-replicas", "2", "--max-crashes", "1", "--stops", "lossy"],
     "AckedRecordNotLost", 13),
    ("K2", ["--generation", "truncate-to-hw", "--max-crashes", "2", "--stops", "lossy"], "LogMatching", 14),
]
STRATEGIES = [[], ["--no-por"], ["--no-por", "--no-symmetry"], ["--incremental", "--no-por", "--no-symmetry"]]
# StrongIsr's and WeakIsr's 21 lemmas (docs/proofs.md).
ISR_LEMMAS = list(ISR_PROOF_LEMMAS)
BEYOND = [("kip279", 4, 3, 14), ("kip320-first-try", 4, 3, 16), ("kip279", 5, 3, 14), ("kip320-first-try", 5, 3, 16)]


def run(argv: list[str], cap: float) -> tuple[float, float, int | None, str, str]:
    """(wall s, CPU s, exit status or None when capped, stdout, stderr) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=cap)
        status, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        status = None
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, status, out, err


def classic(gen: str, n: int, epochs: int) -> list[str]:
    return ["--generation", gen, "--replicas", str(n), "--max-leader-epoch", str(epochs), "--invariant", "StrongIsr"]


def bfs(options: list[str], cap: float) -> str:
    wall, cpu, status, out, err = run([ISRCHECK, "check", "classic", *options, "--progress-interval", "5"], cap)
    found = re.search(r"violated in a trace of (\d+) states", out)
    if found:
        got = f"violation, {found.group(1)} states"
    elif status is None:
        lines = [ln for ln in err.splitlines() if ln.startswith("depth")]
        got = "stopped at the cap: " + (re.sub(r"\s+", " ", lines[-1]) if lines else "no progress line yet")
    else:
        got = f"exit {status}"
    return f"BFS  {wall:7.1f} s wall {cpu:7.1f} s CPU  {got}"


def bmc(options: list[str], depth: int, cap: float, strategy: list[str] | None = None) -> str:
    wall, cpu, status, out, err = run(
        [ISRCHECK, "bmc", "classic", *options, "--depth", str(depth), *(strategy or [])], cap)
    found = re.search(r"violated in a trace of (\d+) states", out)
    refuted = re.findall(r"no violation in traces of (\d+) states", err)
    if found:
        got = f"violation, {found.group(1)} states (replayed)"
    elif status is None:
        got = f"stopped at the cap; no violation in traces of up to {refuted[-1] if refuted else 0} states"
    else:
        got = f"exit {status}: " + (out.strip().splitlines() or ["?"])[0]
    per_length = re.findall(r"no violation in traces of \d+ states \(([\d.]+) s", err)[-3:]
    last = f"; last lengths {', '.join(per_length)} s wall" if per_length else ""
    return f"BMC  {wall:7.1f} s wall {cpu:7.1f} s CPU  {got}{last}"


def prove(gen: str, n: int, cap: float, invariants: tuple[str, ...] = ("LeaderInIsr",),
          lemmas: list[str] = LEMMAS) -> str:
    flags = [x for name in lemmas for x in ("--lemma", name)]
    targets = [x for name in invariants for x in ("--invariant", name)]
    wall, cpu, status, out, _ = run(
        [ISRCHECK, "prove", "classic", "--generation", gen, "--replicas", str(n), *targets, *flags, "--quiet"], cap)
    verdict = (out.strip().splitlines() or ["capped"])[0][:60] if status is not None else "stopped at the cap"
    return f"prove {' '.join(invariants)} {gen} {n} replicas: {wall:6.1f} s wall {cpu:6.1f} s CPU  {verdict}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cap", type=float, default=300.0, help="seconds per run before it is stopped")
    p.add_argument("--group", choices=["catalogue", "durability", "solver", "beyond", "prove", "split", "all"],
                   default="all")
    p.add_argument("--only", metavar="GENERATION", help="catalogue, solver and beyond: only this generation")
    p.add_argument("--replicas", type=int, default=3, help="split: the number of replicas")
    p.add_argument("--conjunct", action="append", help="split: only this conjunct (repeatable)")
    p.add_argument("--step", action="append", help="split: only this step type (repeatable)")
    args = p.parse_args()
    print(f"bench_symbolic, {time.strftime('%Y-%m-%d %H:%M')} UTC, cap {args.cap:.0f} s per run, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    wanted = [c for c in CATALOGUE if args.only in (None, c[0])]
    if args.group in ("catalogue", "all"):
        print("\n== The catalogue's holes at the sizes BFS handles (StrongIsr; Replicas/LogSize 2/MaxRecords 2/epochs)")
        for gen, n, epochs, depth in wanted:
            print(f"{gen} {n}/2/2/{epochs}:", flush=True)
            print("   ", bfs(classic(gen, n, epochs), args.cap), flush=True)
            print("   ", bmc(classic(gen, n, epochs), depth, args.cap), flush=True)
    if args.group in ("durability", "all"):
        print("\n== The durability entries (2/2/2/2)")
        for ident, options, invariant, depth in DURABILITY:
            print(f"{ident} {' '.join(options)}:", flush=True)
            print("   ", bfs([*options, "--invariant", invariant], args.cap), flush=True)
            print("   ", bmc([*options, "--invariant", invariant], depth, args.cap), flush=True)
    if args.group in ("solver", "all"):
        print("\n== BMC's solver strategies side by side (StrongIsr)")
        for gen, n, epochs, depth in wanted:
            if n < 3:
                continue
            print(f"{gen} {n}/2/2/{epochs}:", flush=True)
            for strategy in STRATEGIES:
                line = bmc(classic(gen, n, epochs), depth, args.cap, strategy)
                print(f"    {' '.join(strategy) or 'default':28}", line, flush=True)
    if args.group in ("beyond", "all"):
        print("\n== Beyond explicit reach: 4 and 5 replicas, leader epochs 0..3 (StrongIsr)")
        for gen, n, epochs, depth in BEYOND:
            if args.only not in (None, gen):
                continue
            print(f"{gen} {n}/2/2/{epochs}:", flush=True)
            print("   ", bmc(classic(gen, n, epochs), depth, args.cap), flush=True)
            print("   ", bfs(classic(gen, n, epochs), args.cap), flush=True)
    if args.group in ("prove", "all"):
        print("\n== LeaderInIsr by induction (unbounded logs, records, epochs), 7 lemmas")
        for n in (2, 3, 4):
            print("   ", prove("kip320", n, args.cap), flush=True)
        print("\n== StrongIsr and WeakIsr by induction, 21 lemmas, 2 replicas")
        for invariants in (("StrongIsr",), ("WeakIsr",), ("StrongIsr", "WeakIsr")):
            print("   ", prove("kip320", 2, args.cap, invariants, ISR_LEMMAS), flush=True)
        print("\n== StrongIsr and WeakIsr by induction, 22 lemmas, 3 replicas")
        # Both targets together: these lemmas need WeakIsr (docs/proofs.md).
        print("   ", prove("kip320", 3, args.cap, ("StrongIsr", "WeakIsr"), list(ISR_PROOF_LEMMAS_3)), flush=True)
    if args.group == "split":
        print(f"\n== StrongIsr's consecution queries by conjunct and step type, KIP-320, {args.replicas} replicas")
        split(args.replicas, args.cap, args.conjunct, args.step)


class _OneStep:
    """A symbolic model whose ``Next`` is only the steps labelled ``label``."""

    def __init__(self, sym: object, label: str) -> None:
        self._sym, self._label = sym, label

    def steps(self) -> list:
        return [s for s in self._sym.steps() if s.label == self._label]

    def __getattr__(self, name: str) -> object:
        return getattr(self._sym, name)


def split(n: int, cap: float, conjuncts: list[str] | None, steps: list[str] | None) -> None:
    """Each conjunct of StrongIsr's proof against each step type alone, as ``isrcheck prove``
    asks it (the whole invariant before the step; a target also gets the lemmas after it)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from isrcheck.explorer.symbolic.induction import Prover
    from isrcheck.model.factory import make_model
    from isrcheck.model.symbolic import make_symbolic

    sym = make_symbolic(make_model(generation="kip320", replicas=n), unbounded=True)
    # At 3 replicas and more, the three lemmas about a third broker's HW too (docs/proofs.md).
    every = {name: sym.lemmas()[name] for name in (ISR_PROOF_LEMMAS_3 if n >= 3 else ISR_LEMMAS)}
    every["StrongIsr"] = sym.properties()["StrongIsr"]
    labels = list(dict.fromkeys(s.label for s in sym.steps()))
    for name in conjuncts or list(every):
        for label in steps or labels:
            prover = Prover(_OneStep(sym, label), timeout=cap)
            after = {k: f for k, f in every.items() if k != name} if name == "StrongIsr" else None
            before, start = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
            answer, _ = prover.consecution(every, name, every[name], after=after)
            spent = resource.getrusage(resource.RUSAGE_SELF)
            cpu = spent.ru_utime - before.ru_utime + spent.ru_stime - before.ru_stime
            verdict = {"unsat": "preserved", "sat": "CTI"}.get(str(answer), "unknown (time limit)")
            print(f"    {name:36} {label:26} {verdict:22} {cpu:7.1f} s CPU {time.monotonic() - start:7.1f} s wall",
                  flush=True)


if __name__ == "__main__":
    main()
