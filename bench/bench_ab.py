"""Two source trees side by side on bench_classic.py's first two rows (KIP-320, 3/2/2/2, 737,794
states): default properties and StrongIsr only. Runs alternate (A, B, A, B, ...), each row in a
fresh child process through the tree's own bench/harness.py, and print the check's wall time and
the child's CPU time (user + sys), which a loaded machine disturbs far less than wall time.

Usage: python bench/bench_ab.py BASE_TREE NEW_TREE [--runs 3]
(e.g. a worktree of the commit before a change: git worktree add /tmp/base <commit>)
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


def run(tree: str, check: dict) -> tuple[dict, float]:
    payload = json.dumps({"spec": "classic", "model": {"generation": "kip320", "replicas": 3}, "check": check})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, f"{tree}/bench/harness.py", payload], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": tree}, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(out.stdout.splitlines()[-1]), cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    cpu: dict[tuple[str, str], list[float]] = {}
    for i in range(1, args.runs + 1):
        for side, tree in (("base", args.base), ("new", args.new)):
            for name, check in ROWS:
                r, seconds = run(tree, check)
                cpu.setdefault((side, name), []).append(seconds)
                print(f"run {i} {side:4} {name:20} distinct {r['distinct']:,} depth {r['depth']} "
                      f"wall {r['elapsed']:.2f} s cpu {seconds:.2f} s", flush=True)
    for name, _ in ROWS:
        a, b = statistics.mean(cpu[("base", name)]), statistics.mean(cpu[("new", name)])
        print(f"{name}: mean cpu base {a:.2f} s, new {b:.2f} s, new/base {b / a:.3f}")


if __name__ == "__main__":
    main()
