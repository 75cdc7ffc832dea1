"""The KRaft-era generations at the TLC anchor's bounds (Vanlightly's kraft/v3.5 spec with 3 brokers,
replication factor 3, min ISR 2, one value, initial ISR {1,2}, at most one unclean shutdown and one
fencing): K11 found at depth 8 in kraft-3.5, the KIP-966 generation complete, and kraft-3.5 with
AvoidLastReplicaStanding (the spec repository's own configuration, where TLC ran 13 minutes past
4.7 million states without finishing here) complete. Each row in its own process; prints distinct
states, depth, seconds, states/s and peak memory.

Usage: python bench/bench_kraft.py [--quick] [--split]
  --quick: skip the two complete runs of ~10^6 states; --split: add K7-fixed with --split-fetch
  (the fetch as the spec's three message steps: 894,856 states instead of 9,983)
"""

from __future__ import annotations

import argparse

from harness import header, measure, row

ANCHOR = {"replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2, "max_fencings": 1,
          "max_crashes": 1, "stops": "lossy"}

ROWS = [
    ("K11 kraft-3.5 (stop at 1st)", {"generation": "kraft-3.5", **ANCHOR}, {"properties": ["LeaderCompleteness"]}),
    ("K7-fixed kraft-3.5 no stop", {"generation": "kraft-3.5", **ANCHOR, "max_crashes": 0, "stops": "all"}, {}),
    ("K11-fixed kraft-kip966", {"generation": "kraft-kip966", **ANCHOR}, {}),
    ("kraft-3.5 avoid-LRS", {"generation": "kraft-3.5", **ANCHOR, "avoid_last_replica_standing": True}, {}),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--split", action="store_true")
    args = ap.parse_args()
    print("KRaft generations, local engine, exact store, one process per row")
    print(header(30))
    rows = ROWS[:2] if args.quick else ROWS
    if args.split:
        rows = [*rows, ("K7-fixed, split fetch", {**ROWS[1][1], "split_fetch": True}, {})]
    for name, options, check_options in rows:
        print(row(name, measure("classic", options, check_options), 30), flush=True)


if __name__ == "__main__":
    main()
