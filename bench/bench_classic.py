"""The classic replication model at TLC's calibration point: KIP-320 with 3 replicas, log size 2,
2 records, 2 leader epochs (737,794 distinct states, depth 26). TLC needs 57 s wall with 2
workers on this machine kind (docs/architecture.md, TLC's figures). The first row is the CLI's
default, every core (the peak memory is the coordinator's); the others run in one process (each
row in a fresh process). Prints each configuration's states/s, peak memory and its speed-up over TLC.

Usage: python bench/bench_classic.py [--replicas 3] [--generation kip320]
"""

from __future__ import annotations

import argparse

from harness import header, measure, row

TLC_SECONDS = {("kip320", 3): 57.0}

CONFIGS = [
    ("default, every core", {"workers": None}),
    ("default, 1 process", {}),
    ("StrongIsr only", {"properties": ["StrongIsr"]}),
    ("StrongIsr, fingerprints", {"properties": ["StrongIsr"], "store": "fingerprint"}),
    ("StrongIsr, symmetry", {"properties": ["StrongIsr"], "symmetry": True}),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--generation", default="kip320")
    ap.add_argument("--replicas", type=int, default=3)
    args = ap.parse_args()
    options = {"generation": args.generation, "replicas": args.replicas}
    tlc = TLC_SECONDS.get((args.generation, args.replicas))
    print(f"classic {args.generation}, {args.replicas}/2/2/2, local engine, one process unless the row says "
          "every core; each row in a fresh process")
    print(header() + f"{'vs TLC':>9}")
    for name, check_options in CONFIGS:
        r = measure("classic", options, check_options)
        ratio = f"{tlc / r['elapsed']:>8.1f}x" if tlc else f"{'-':>9}"
        print(row(name, r) + ratio)
    if tlc:
        print(f"TLC: {tlc:.0f} s wall, 2 workers, 737,794 distinct states (about {737794 / tlc:,.0f} states/s)")


if __name__ == "__main__":
    main()
