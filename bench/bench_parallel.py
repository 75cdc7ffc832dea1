"""The local engine on one core and on every core, with both stores, side by side in one run, next to
TLC's published figures for the same configuration.

Each configuration runs in a fresh process (``harness``-style), alternating A/B, ``--repeats``
times; the table shows the median wall time, distinct states per second, the peak resident memory
of the coordinator and of its largest worker, bytes per distinct state (the coordinator's peak
over its baseline, divided by the distinct states: everything a run keeps, frontier included),
and the store's own bytes per state (the compact tables and trace keys, counted exactly).

Usage: python bench/bench_parallel.py [--replicas 3] [--max-leader-epoch 2] [--repeats 3]
On a loaded machine the absolute figures are pessimistic; the ratios between rows taken in the
same run are what to read.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys

import harness

# TLC on this machine kind (2 cores), hachikuji's KIP-320 spec, invariants WeakIsr and StrongIsr.
TLC = {
    (3, 2): {"states": 737_794, "2 workers": [52.9, 49.5], "1 worker": [92.3, 85.9], "memory": None},
    (3, 3): {"states": 9_985_570, "2 workers": [18 * 60 + 6], "1 worker": [], "memory": "4.2 GB"},
}
CONFIGS = [
    ("1 worker, exact", {"workers": 1, "store": "exact"}),
    ("2 workers, exact", {"workers": 2, "store": "exact"}),
    ("1 worker, fingerprint", {"workers": 1, "store": "fingerprint"}),
    ("2 workers, fingerprint", {"workers": 2, "store": "fingerprint"}),
]


def measure(model_options: dict, check_options: dict) -> dict:
    return harness.run_child(__file__, {"model": model_options, "check": check_options})


def child(payload: str) -> None:
    args = json.loads(payload)
    from explorer import check
    from explorer.registry import build_model

    model = build_model("classic", args["model"])
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = check(model, properties=["WeakIsr", "StrongIsr"], **args["check"])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    store_bytes = r.stats.get("store_bytes")  # compact tables + trace keys (fingerprint store, parallel)
    print(json.dumps({"distinct": r.distinct_states, "depth": r.depth, "elapsed": r.elapsed, "ok": r.ok,
                      "peak_kib": peak, "base_kib": base, "workers_kib": workers_peak,
                      "store_bytes": store_bytes}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--max-leader-epoch", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    model = {"generation": "kip320", "replicas": args.replicas, "max_leader_epoch": args.max_leader_epoch}
    runs: dict[str, list[dict]] = {name: [] for name, _ in CONFIGS}
    for _ in range(args.repeats):  # alternate the configurations, so load drifts hit each alike
        for name, options in CONFIGS:
            runs[name].append(measure(model, options))
    print(f"classic kip320 {args.replicas}/2/2/{args.max_leader_epoch}, invariants WeakIsr StrongIsr, "
          f"{args.repeats} alternating runs each, median wall; {os.cpu_count()} cores")
    print(f"{'configuration':<26}{'distinct':>11}{'depth':>6}{'seconds':>9}{'all runs':>22}{'distinct/s':>12}"
          f"{'peak MiB':>9}{'+worker':>8}{'B/state':>8}{'store B/st':>11}")
    base_time = None
    for name, _ in CONFIGS:
        rs = runs[name]
        r = rs[0]
        t = statistics.median(x["elapsed"] for x in rs)
        base_time = base_time or t
        per_state = (r["peak_kib"] - r["base_kib"]) * 1024 / max(r["distinct"], 1)
        store = f"{r['store_bytes'] / r['distinct']:.1f}" if r["store_bytes"] else "-"
        worker = f"{r['workers_kib'] / 1024:.0f}" if r["workers_kib"] else "-"
        each = " ".join(f"{x['elapsed']:.1f}" for x in rs)
        print(f"{name:<26}{r['distinct']:>11,}{r['depth']:>6}{t:>9.2f}{each:>22}"
              f"{r['distinct'] / t:>12,.0f}{r['peak_kib'] / 1024:>9.0f}{worker:>8}{per_state:>8.0f}{store:>11}")
    for name, _ in CONFIGS[1:]:
        ratio = statistics.median(x["elapsed"] for x in runs[CONFIGS[0][0]]) / statistics.median(
            x["elapsed"] for x in runs[name])
        print(f"speed-up of '{name}' over '1 worker, exact': {ratio:.2f}x")
    tlc = TLC.get((args.replicas, args.max_leader_epoch))
    if tlc:
        print(f"TLC (published, same machine kind, quiet): {tlc['states']:,} states; 2 workers "
              f"{', '.join(f'{s:.1f} s' for s in tlc['2 workers'])}"
              + (f"; 1 worker {', '.join(f'{s:.1f} s' for s in tlc['1 worker'])}" if tlc["1 worker"] else "")
              + (f"; {tlc['memory']} peak" if tlc["memory"] else ""))
        best = min(statistics.median(x["elapsed"] for x in runs[name]) for name, _ in CONFIGS)
        print(f"fastest isrcheck row vs TLC 2 workers (best TLC run): {min(tlc['2 workers']) / best:.1f}x")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
