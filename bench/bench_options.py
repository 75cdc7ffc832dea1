"""What each durability option (``isrcheck.model.options.DurabilityOptions``) costs: distinct states, depth and distinct
states/s of a complete run, side by side with the classic model it extends, in one run (one fresh
process per row, see ``harness``). Every row checks its model's default properties.

Usage: python bench/bench_options.py [--generation kip320] [--replicas 2]
"""

from __future__ import annotations

import argparse

from harness import header, measure, row

OPTIONS = [
    ("classic (baseline)", {}),
    ("acks=1", {"acks": "1"}),
    ("acks=all", {"acks": "all"}),
    ("acks=all, min.insync=2", {"acks": "all", "min_insync_replicas": 2}),
    ("1 controlled shutdown", {"max_crashes": 1, "stops": "controlled"}),
    ("1 crash", {"max_crashes": 1, "stops": "crash"}),
    ("1 lossy crash", {"max_crashes": 1, "stops": "lossy"}),
    ("2 stops, all kinds", {"max_crashes": 2, "stops": "all"}),
    ("1 crash, unclean=any", {"max_crashes": 1, "stops": "crash", "unclean_election": "any"}),
    ("1 lossy, kip966 rule", {"max_crashes": 1, "stops": "lossy", "kip966_unclean_recovery": True}),
    ("K6 expansion bug", {"expand_before_epoch_start": True}),
    ("acks=all, 2 stops, unclean", {"acks": "all", "max_crashes": 2, "stops": "all", "unclean_election": "any"}),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--generation", default="kip320")
    ap.add_argument("--replicas", type=int, default=2)
    args = ap.parse_args()
    base = {"generation": args.generation, "replicas": args.replicas}
    print(f"{args.generation}, {args.replicas}/2/2/2, each model's default properties, complete runs "
          "(stop_at_first off), local engine, one process per row")
    width = 30
    print(header(width) + f"{'speed vs classic':>18}")
    baseline = None
    for name, options in OPTIONS:
        r = measure("classic", {**base, **options}, {"stop_at_first": False})
        rate = r["distinct"] / r["elapsed"]
        baseline = baseline or rate
        print(row(name, r, width) + f"{rate / baseline:>17.2f}x")


if __name__ == "__main__":
    main()
