"""Two source trees side by side on bench_classic.py's first two rows (KIP-320, 3/2/2/2, 737,794
states): default properties and StrongIsr only. Runs alternate (A, B, A, B, ...), each row in a
fresh child process through the tree's own bench/harness.py, and print the check's wall time and
the child's CPU time (user + sys), which a loaded machine disturbs far less than wall time.

Usage: python bench/bench_ab.py BASE_TREE NEW_TREE [--runs 3] [--max-leader-epoch 2] [--cores]
(e.g. a clone of the commit before a change, with its own environment: git clone -q REPO /tmp/base;
cd /tmp/base; python3 -m venv .venv; .venv/bin/pip install -e . — each tree runs in TREE/.venv
where there is one, and the first lines say where each side imports the engine from)
``--cores`` compares the default (every core) with one process instead of the two property rows:
the parallel engine's A/B; each row's wall time and speed-up over one process are printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys

ROWS = [("default properties", {}), ("StrongIsr only", {"properties": ["StrongIsr"]})]
CORE_ROWS = [("every core", {"workers": None}), ("1 process", {"workers": 1})]


def interpreter(tree: str) -> str:
    """The tree's own environment's Python where it has one (``TREE/.venv``): an editable install
    maps ``isrcheck`` onto its checkout ahead of PYTHONPATH, so one interpreter for both trees would
    run the same code twice. Otherwise this one, with the tree on PYTHONPATH."""
    own = os.path.join(tree, ".venv", "bin", "python")
    return own if os.path.exists(own) else sys.executable


def imported_from(tree: str) -> str:
    """Where the tree's interpreter imports isrcheck's engine from (printed, to check the A/B)."""
    code = "import isrcheck.explorer.search.parallel.engine as e; print(e.__file__)"
    return subprocess.run([interpreter(tree), "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": tree}, cwd="/").stdout.strip()


def run(tree: str, check: dict, epochs: int = 2) -> tuple[dict, float]:
    model = {"generation": "kip320", "replicas": 3, "max_leader_epoch": epochs}
    payload = json.dumps({"spec": "classic", "model": model, "check": check})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([interpreter(tree), f"{tree}/bench/harness.py", payload], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": tree}, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(out.stdout.splitlines()[-1]), cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-leader-epoch", type=int, default=2, help="3: the 9,985,570-state configuration")
    ap.add_argument("--cores", action="store_true", help="every core against one process, not the property rows")
    args = ap.parse_args()
    args.base, args.new = os.path.abspath(args.base), os.path.abspath(args.new)
    rows = CORE_ROWS if args.cores else ROWS
    for side, tree in (("base", args.base), ("new", args.new)):
        print(f"{side}: {interpreter(tree)} imports {imported_from(tree)}", flush=True)
    wall: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    for i in range(1, args.runs + 1):
        for side, tree in (("base", args.base), ("new", args.new)):
            for name, check in rows:
                r, seconds = run(tree, check, args.max_leader_epoch)
                cpu.setdefault((side, name), []).append(seconds)
                wall.setdefault((side, name), []).append(r["elapsed"])
                print(f"run {i} {side:4} {name:20} distinct {r['distinct']:,} depth {r['depth']} "
                      f"wall {r['elapsed']:.2f} s cpu {seconds:.2f} s", flush=True)
    for name, _ in rows:
        a, b = statistics.mean(cpu[("base", name)]), statistics.mean(cpu[("new", name)])
        wa, wb = statistics.median(wall[("base", name)]), statistics.median(wall[("new", name)])
        print(f"{name}: mean cpu base {a:.2f} s, new {b:.2f} s, new/base {b / a:.3f}; "
              f"median wall base {wa:.2f} s, new {wb:.2f} s")
    if args.cores:
        for side in ("base", "new"):
            one, every = (statistics.median(wall[(side, n)]) for n in ("1 process", "every core"))
            print(f"{side}: every core {one / every:.2f}x one process (median wall)")


if __name__ == "__main__":
    main()
