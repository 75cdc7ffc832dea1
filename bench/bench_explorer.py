"""Throughput and memory of the local engine on a fixture model of about a million states.

Each configuration runs in its own process so peak memory (ru_maxrss) is that run's alone; the
baseline is the same process after building the model, before exploring. Prints one table with
the configurations side by side. Usage: python bench/bench_explorer.py [--n 3 --limit 100]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CONFIGS = [
    ("exact", {"store": "exact"}),
    ("fingerprint", {"store": "fingerprint"}),
    ("exact+symmetry", {"store": "exact", "symmetry": True}),
]


def child(n: int, limit: int, options: dict) -> None:
    sys.path.insert(0, str(ROOT))
    from explorer import check
    from tests.fixtures.models import Counters

    model = Counters(n, limit)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = check(model, **options)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"distinct": r.distinct_states, "generated": r.generated_states, "depth": r.depth,
                      "elapsed": r.elapsed, "peak_kib": peak, "base_kib": base}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.n, args.limit, json.loads(args.child))
        return
    print(f"Counters(n={args.n}, limit={args.limit}): {args.limit ** args.n:,} states, one process each")
    print(f"{'store':<16}{'distinct':>12}{'generated':>12}{'depth':>7}{'seconds':>9}{'distinct/s':>12}"
          f"{'peak MiB':>10}{'bytes/state':>13}")
    for name, options in CONFIGS:
        out = subprocess.run([sys.executable, __file__, "--n", str(args.n), "--limit", str(args.limit),
                              "--child", json.dumps(options)], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        r = json.loads(out.stdout)
        per_state = (r["peak_kib"] - r["base_kib"]) * 1024 / r["distinct"]
        print(f"{name:<16}{r['distinct']:>12,}{r['generated']:>12,}{r['depth']:>7}{r['elapsed']:>9.2f}"
              f"{r['distinct'] / r['elapsed']:>12,.0f}{r['peak_kib'] / 1024:>10.0f}{per_state:>13.0f}")


if __name__ == "__main__":
    main()
