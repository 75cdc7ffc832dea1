"""The C hot path (``isrcheck.model.native``) against the Python one (``ISRCHECK_PURE_PYTHON=1``), side by side.

Issue 15's command: ``isrcheck check classic --generation kip320 --replicas 3 --invariant WeakIsr
--invariant StrongIsr`` (737,794 states), with one process and with ``--workers 2``. Runs alternate
native, python, native, python... each in a fresh child process (bench/harness.py), and print the
check's wall time, the child's CPU time (user + sys, its forked workers included: a loaded machine
disturbs it far less than wall time), states per second and the python/native ratios.

Usage: python bench/bench_native.py [--runs 3] [--workers 1 2] [--max-leader-epoch 2]
(``--max-leader-epoch 3`` is KIP-320 3/2/2/3, 9,985,570 states: minutes per run.)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIDES = (("native", "0"), ("python", "1"))


def run(pure: str, model: dict, check: dict) -> dict:
    payload = json.dumps({"spec": "classic", "model": model, "check": check})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "harness.py"), payload], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT), "ISRCHECK_PURE_PYTHON": pure})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr}")
    r = json.loads(out.stdout.splitlines()[-1])
    r["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    r["process_wall"] = wall
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--max-leader-epoch", type=int, default=2)
    args = ap.parse_args()
    model = {"generation": "kip320", "replicas": 3, "max_leader_epoch": args.max_leader_epoch}
    print(f"KIP-320 3/2/2/{args.max_leader_epoch}, WeakIsr and StrongIsr; load average at start "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    got: dict[tuple[int, str], list[dict]] = {}
    for i in range(1, args.runs + 1):
        for workers in args.workers:
            for side, pure in SIDES:
                r = run(pure, model, {"properties": ["WeakIsr", "StrongIsr"], "workers": workers})
                got.setdefault((workers, side), []).append(r)
                print(f"run {i} workers {workers} {side:6} distinct {r['distinct']:,} generated {r['generated']:,} "
                      f"check wall {r['elapsed']:.2f} s, process wall {r['process_wall']:.2f} s, "
                      f"cpu {r['cpu']:.2f} s, {r['distinct'] / r['elapsed']:,.0f} states/s", flush=True)
    print(f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'workers':>7} {'side':>7} {'cpu s':>8} {'wall s':>8} {'states/s':>10}   (means of {args.runs} runs)")
    for workers in args.workers:
        means = {}
        for side, _ in SIDES:
            rs = got[(workers, side)]
            cpu, wall = statistics.mean(r["cpu"] for r in rs), statistics.mean(r["elapsed"] for r in rs)
            means[side] = cpu, wall
            print(f"{workers:>7} {side:>7} {cpu:>8.2f} {wall:>8.2f} {rs[0]['distinct'] / wall:>10,.0f}")
        (nc, nw), (pc, pw) = means["native"], means["python"]
        print(f"{workers:>7} {'ratio':>7} python/native: cpu {pc / nc:.2f}x, wall {pw / nw:.2f}x")


if __name__ == "__main__":
    main()
