"""Two source trees' Spark engines side by side: runs alternate (A, B, A, B, ...), each a fresh
``bench/bench_spark.py --no-local`` of the tree itself, under the tree's own ``.venv`` when it has
one (an editable install maps ``isrcheck`` onto one checkout, so a tree needs its own
environment). Prints each run's search wall time and CPU (driver, Spark's JVM, the Python
workers), then the medians and the new/base ratios. CPU is the figure a shared machine disturbs
least; nothing asserts on time.

Usage: python bench/bench_spark_ab.py BASE_TREE NEW_TREE [--runs 3] [--spec kip320:3:2:2:2] [--levels]
       [--master "local-cluster[2,1,2048]" --partitions 2]
(e.g. a worktree of main: git worktree add --detach /tmp/base main, with its own venv)
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

# bench_spark's summary line: "... | spark   63.45 s x 1.69 (CPU: driver 0.4 s, JVM 29.3 s, Python workers 92.4 s)"
_LINE = re.compile(r"spark\s+([\d.]+) s .*CPU: driver ([\d.]+) s, JVM ([\d.]+) s, Python workers ([\d.]+) s")


def run(tree: str, spec: str, levels: bool, extra: tuple[str, ...] | list[str] = ()) -> tuple[dict[str, float], str]:
    python = Path(tree, ".venv", "bin", "python")
    exe = str(python) if python.exists() else sys.executable
    cmd = [exe, f"{tree}/bench/bench_spark.py", "--sizes", "", "--replication", spec, "--no-local"]
    if levels:
        cmd.append("--levels")
    cmd.extend(extra)
    env = {**os.environ, "PYTHONPATH": tree, "PYSPARK_PYTHON": exe}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    m = _LINE.search(out)
    if m is None:
        raise SystemExit(f"no summary line in the output of {cmd}:\n{out}")
    wall, driver, jvm, workers = map(float, m.groups())
    return {"wall": wall, "cpu": driver + jvm + workers, "jvm": jvm, "workers": workers}, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--spec", default="kip320:3:2:2:2", help="bench_spark's --replication row")
    ap.add_argument("--levels", action="store_true", help="print each run's per-level table")
    ap.add_argument("--master", default=None, help="bench_spark's --master (default its own, local[2])")
    ap.add_argument("--partitions", default=None, help="bench_spark's --partitions")
    args = ap.parse_args()
    extra = [*(["--master", args.master] if args.master else []),
             *(["--partitions", args.partitions] if args.partitions else [])]
    figures: dict[str, list[dict[str, float]]] = {"base": [], "new": []}
    for i in range(1, args.runs + 1):
        for side, tree in (("base", args.base), ("new", args.new)):
            f, out = run(tree, args.spec, args.levels, extra)
            figures[side].append(f)
            print(f"run {i} {side:4} search {f['wall']:.2f} s, CPU {f['cpu']:.1f} s (JVM {f['jvm']:.1f} s, "
                  f"Python workers {f['workers']:.1f} s)", flush=True)
            if args.levels:
                print(out, flush=True)
    med = {side: {k: statistics.median(f[k] for f in runs) for k in ("wall", "cpu", "jvm", "workers")}
           for side, runs in figures.items()}
    for key in ("wall", "cpu", "jvm", "workers"):
        print(f"median {key:8}: base {med['base'][key]:.2f} s, new {med['new'][key]:.2f} s, "
              f"new/base {med['new'][key] / med['base'][key]:.3f}")


if __name__ == "__main__":
    main()
