"""Throughput and memory of the local engine on a fixture model of about a million states.

Usage: python bench/bench_explorer.py [--n 3 --limit 100]
"""

from __future__ import annotations

import argparse

from harness import ROOT, header, measure, row

COUNTERS = f"{ROOT}/bench/counters_model.py:make_model"

CONFIGS = [
    ("exact", {"store": "exact"}),
    ("fingerprint", {"store": "fingerprint"}),
    ("exact+symmetry", {"store": "exact", "symmetry": True}),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--limit", type=int, default=100)
    args = ap.parse_args()
    print(f"Counters(n={args.n}, limit={args.limit}): {args.limit ** args.n:,} states, one process each")
    print(header())
    for name, options in CONFIGS:
        print(row(name, measure(COUNTERS, {"n": args.n, "limit": args.limit}, options)))


if __name__ == "__main__":
    main()
