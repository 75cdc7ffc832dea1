"""What liveness costs: a run that checks a liveness property against the safety run of the same
configuration (TLC's liveness checking costs about 3x its safety run), the memory the state graph
and networkx take per state, and where that stops being affordable.

Each measurement runs in a fresh process (peak RSS is its own). Safety and liveness runs alternate,
``--repeat`` times each, and the medians are compared. The liveness run checks the default
properties plus ``LeaderEventuallyElected``; its extra time is recording the graph during the search
(integer ids, three arrays of edges) plus the fair-cycle search with networkx.

The networkx figure is measured with tracemalloc on the worst case: a candidate graph holding
every explored state (a leads-to whose target never holds); real properties hand networkx only the
states where the target is false.

Usage: python bench/bench_liveness.py [--repeat 3] [--large | --large-only]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys

import harness

BASE = {"generation": "kip320", "replicas": 2, "log_size": 2, "max_records": 2, "max_leader_epoch": 2}
CONFIGS = [
    ("classic 2/2/2/2", BASE),
    ("acks=all, 1 crash, unclean any", {**BASE, "acks": "all", "max_crashes": 1, "stops": "crash",
                                        "unclean_election": "any"}),
    ("acks=all, 2 stops (all kinds), unclean any", {**BASE, "acks": "all", "max_crashes": 2, "stops": "all",
                                      "unclean_election": "any"}),
]
LARGE = ("classic 3/2/2/2", {**BASE, "replicas": 3})
LIVENESS = "LeaderEventuallyElected"


def run_child(mode: str, options: dict) -> dict:
    return harness.run_child(__file__, {"mode": mode, "options": options})


def child(payload: str) -> None:
    args = json.loads(payload)
    from isrcheck.explorer.registry import build_model

    from isrcheck import check

    model = build_model("classic", args["options"])
    defaults = [p.name for p in model.properties() if p.default]
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if args["mode"] == "networkx":
        print(json.dumps(networkx_cost(model, defaults)))
        return
    names = defaults + ([LIVENESS] if args["mode"] == "liveness" else [])
    r = check(model, properties=names, stop_at_first=False)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"distinct": r.distinct_states, "edges": r.generated_states, "elapsed": r.elapsed,
                      "peak_kib": peak, "base_kib": base, "violations": len(r.violations)}))


def networkx_cost(model, defaults) -> dict:
    import gc
    import tracemalloc

    from isrcheck.explorer.liveness.fair_cycles import candidate_graph

    from isrcheck import check

    r = check(model, properties=defaults, stop_at_first=False, graph=True)
    graph = r.graph
    store = graph.nbytes() + sys.getsizeof(graph.ids) + sys.getsizeof(graph.keys)
    gc.collect()
    tracemalloc.start()
    h, enabled = candidate_graph(graph, lambda i: True)
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"distinct": len(graph), "edges": graph.edge_count, "nx_edges": h.number_of_edges(),
            "nx_bytes": current, "store_bytes": store}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--large", action="store_true", help="also the 3-replica classic model (738k states)")
    ap.add_argument("--large-only", action="store_true", help="only the 3-replica classic model")
    args = ap.parse_args()
    configs = [LARGE] if args.large_only else CONFIGS + ([LARGE] if args.large else [])
    print(f"liveness run = default properties + {LIVENESS}; medians of {args.repeat} alternating runs each")
    print(f"{'configuration':<44}{'states':>10}{'safety s':>10}{'liveness s':>12}{'ratio':>7}"
          f"{'safety MiB':>12}{'liveness MiB':>14}{'extra B/state':>15}")
    for name, options in configs:
        safety, live = [], []
        for _ in range(args.repeat):
            safety.append(run_child("safety", options))
            live.append(run_child("liveness", options))
        s = statistics.median(r["elapsed"] for r in safety)
        t = statistics.median(r["elapsed"] for r in live)
        s_mib = statistics.median(r["peak_kib"] for r in safety) / 1024
        l_mib = statistics.median(r["peak_kib"] for r in live) / 1024
        extra = (l_mib - s_mib) * 1024 * 1024 / live[0]["distinct"]
        print(f"{name:<44}{live[0]['distinct']:>10,}{s:>10.2f}{t:>12.2f}{t / s:>7.2f}{s_mib:>12.0f}{l_mib:>14.0f}"
              f"{extra:>15.0f}")
    print("\nnetworkx, worst case (every state in the candidate graph), tracemalloc:")
    for name, options in configs:
        r = run_child("networkx", options)
        print(f"{name:<44}{r['distinct']:>10,} states {r['nx_edges']:>10,} edges: networkx "
              f"{r['nx_bytes'] / r['distinct']:>6.0f} B/state ({r['nx_bytes'] / 2**20:.0f} MiB); graph store "
              f"{r['store_bytes'] / r['distinct']:.0f} B/state")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
