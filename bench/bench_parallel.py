"""The local engine on one core and on every core, with both stores, side by side in one run, next to
TLC's published figures for the same configuration.

Each configuration runs in a fresh process (``harness``-style), alternating A/B, ``--repeats``
times; the table shows the median wall time, the median CPU seconds of the coordinator and of all
its workers together, distinct states per second, the peak resident memory
of the coordinator and of its largest worker, bytes per distinct state (the coordinator's peak
over its baseline, divided by the distinct states: everything a run keeps, frontier included),
and the store's own bytes per state (the parallel engine's visited set, its keys and the 5-byte
trace keys, counted with ``sys.getsizeof``). After the table, for each row with workers: the
serial fraction (the wall seconds the coordinator works while no worker runs, over those plus the
workers' CPU seconds) and the speed-up Amdahl's law projects from it at 2, 16 and 64 cores, over
the engine on one core and over one process (``amdahl``).

Usage: python bench/bench_parallel.py [--replicas 3] [--max-leader-epoch 2] [--repeats 3] [--store both] [--parts]
(``--parts``: where the time goes, each part of the search timed alone in one process.)
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
    from isrcheck.explorer.registry import build_model

    from isrcheck import check

    model = build_model("classic", args["model"])
    before, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    base = before.ru_maxrss
    r = check(model, properties=["WeakIsr", "StrongIsr"], **args["check"])
    after, children_after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = after.ru_maxrss
    workers_peak = children_after.ru_maxrss
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    workers_cpu = (children_after.ru_utime + children_after.ru_stime - children.ru_utime - children.ru_stime)
    store_bytes = r.stats.get("store_bytes")  # the parallel engine's visited set and trace keys, counted
    print(json.dumps({"distinct": r.distinct_states, "depth": r.depth, "elapsed": r.elapsed, "ok": r.ok,
                      "peak_kib": peak, "base_kib": base, "workers_kib": workers_peak,
                      "store_bytes": store_bytes, "cpu": cpu, "workers_cpu": workers_cpu,
                      "serial": r.stats.get("serial_seconds"), "phase_cpu": r.stats.get("worker_cpu_seconds")}))


def parts(model_options: dict) -> None:
    """Where the time goes: each part of the search timed alone (CPU seconds, one process) over the
    whole state space, level by level, as the one-process engine and the parallel workers do it."""
    import gc
    import pickle
    import time

    from isrcheck.explorer.registry import build_model
    from isrcheck.explorer.search.parallel.engine import _Context
    from isrcheck.explorer.search.parallel.worker import Expander
    from isrcheck.explorer.selection import select_properties

    model = build_model("classic", model_options)
    props = select_properties(model, ["WeakIsr", "StrongIsr"])
    successors, pack, unpack = model.successors, model.pack, model.unpack
    levels = []  # (frontier as states, frontier packed, visited set packed as of the level's start)
    seen = {s: None for s in model.init_states()}
    frontier = list(seen)
    while frontier:
        levels.append((frontier, [pack(s) for s in frontier], frozenset(pack(s) for s in seen)))
        nxt = []
        for s in frontier:
            for _, t in successors(s):
                if t not in seen:
                    seen[t] = s
                    nxt.append(t)
        frontier = nxt
    states = list(seen)
    gc.collect()
    gc.freeze()  # the collector must not rescan these millions of objects inside the timed parts
    clock = time.process_time
    expander = Expander(_Context(model, props, None, "exact", pack, unpack))
    expander.sampled = 10**9
    always = [(n, p.predicate) for n, p in enumerate(props.always)]
    results = []

    def timed(name: str, fn) -> None:
        start = clock()
        fn()
        print(f"{name:<62}{clock() - start:>7.2f} s", flush=True)

    def one_process_set() -> None:
        visited: dict = {}
        for s in states:
            for _, t in successors(s):
                if t in visited:
                    continue
                visited[t] = s

    def workers_expand() -> None:
        results.clear()
        for _, packed, known in levels:
            results.append(expander.expand_plain(packed, (known, set()), set(), always, []))

    def coordinator() -> None:
        data = [pickle.dumps(("ok", r), protocol=pickle.HIGHEST_PROTOCOL) for r in results]
        start = clock()
        visited: set = set()
        for blob in data:
            _, r = pickle.loads(blob)
            for k in r[1]:
                if k not in visited:
                    visited.add(k)
        print(f"{'  a coordinator replaying them (the design before issue 25)':<62}{clock() - start:>7.2f} s")

    def each(fn, items) -> None:  # results are dropped at once: a list of them would wake the collector
        for x in items:
            fn(x)

    def pack_all() -> None:
        for s in states:
            for _, t in successors(s):
                pack(t)

    print(f"classic {model_options}: {len(states):,} states; CPU seconds of each part alone")
    timed("successors of every state (model.successors)", lambda: each(successors, states))
    timed("  + visited dict test and insert of every successor (1 process)", one_process_set)
    timed("WeakIsr and StrongIsr on every distinct state", lambda: [each(p, states) for _, p in always])
    timed("successors and pack of every successor (parallel exact store)", pack_all)
    timed("unpack every frontier state (parallel exact store)", lambda: [each(unpack, f) for _, f, _ in levels])
    timed("a worker's whole expand: unpack, successors, pack, filter, properties", workers_expand)
    timed("  pickling the candidates (workers)",
          lambda: [pickle.dumps(("ok", r), protocol=pickle.HIGHEST_PROTOCOL) for r in results])
    print(f"candidates shipped: {sum(len(r[1]) for r in results):,} of "
          f"{sum(sum(c for c in r[0] if c > 0) for r in results):,} successors")
    coordinator()


def amdahl(runs: dict[str, list[dict]], configs: list[tuple[str, dict]]) -> None:
    """The serial fraction of each multi-worker row and what it implies on more cores.

    S: the wall seconds the coordinator works while no worker runs (the engine's
    ``serial_seconds``); P: the CPU seconds the workers spend in their phases. The serial fraction
    is S / (S + P), and Amdahl's law gives the speed-up over the same engine on one core,
    1 / (f + (1 - f) / N). Against one process (the row of the same store), the projection is
    its CPU seconds over S + P / N: the workers' own overhead (routing states to their owners)
    counts against them. CPU seconds, not wall: a loaded machine inflates wall time, not these."""
    for name, options in configs:
        rs = runs[name]
        if options["workers"] < 2 or rs[0].get("serial") is None:
            continue
        serial = statistics.median(x["serial"] for x in rs)
        work = statistics.median(x["phase_cpu"] for x in rs)
        fraction = serial / (serial + work)
        one = next((n for n, o in configs if o["workers"] == 1 and o["store"] == options["store"]), None)
        base = statistics.median(x["cpu"] for x in runs[one]) if one else None
        cores = (2, 16, 64)
        own = ", ".join(f"{n}: {1 / (fraction + (1 - fraction) / n):.1f}x" for n in cores)
        line = (f"'{name}': serial {serial:.2f} s (coordinator alone), workers {work:.2f} CPU s; serial fraction "
                f"{fraction:.2%}; Amdahl over 1 worker at {own}")
        if base:
            line += "; over one process (" + ", ".join(
                f"{n} cores {base / (serial + work / n):.1f}x" for n in cores) + ")"
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--max-leader-epoch", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--parts", action="store_true", help="time each part of the search alone instead")
    ap.add_argument("--store", choices=["exact", "fingerprint", "both"], default="both",
                    help="the rows of this store only (3/2/2/3's fingerprint rows take minutes each)")
    args = ap.parse_args()
    configs = [(name, options) for name, options in CONFIGS if args.store in ("both", options["store"])]
    model = {"generation": "kip320", "replicas": args.replicas, "max_leader_epoch": args.max_leader_epoch}
    if args.parts:
        parts(model)
        return
    runs: dict[str, list[dict]] = {name: [] for name, _ in configs}
    for _ in range(args.repeats):  # alternate the configurations, so load drifts hit each alike
        for name, options in configs:
            runs[name].append(measure(model, options))
    print(f"classic kip320 {args.replicas}/2/2/{args.max_leader_epoch}, invariants WeakIsr StrongIsr, "
          f"{args.repeats} alternating runs each, median wall; {os.cpu_count()} cores")
    print(f"{'configuration':<26}{'distinct':>11}{'depth':>6}{'seconds':>9}{'all runs':>22}{'CPU s':>7}{'+workers':>9}"
          f"{'distinct/s':>12}{'peak MiB':>9}{'+worker':>8}{'B/state':>8}{'store B/st':>11}")
    base_time = None
    for name, _ in configs:
        rs = runs[name]
        r = rs[0]
        t = statistics.median(x["elapsed"] for x in rs)
        base_time = base_time or t
        per_state = (r["peak_kib"] - r["base_kib"]) * 1024 / max(r["distinct"], 1)
        store = f"{r['store_bytes'] / r['distinct']:.1f}" if r["store_bytes"] else "-"
        worker = f"{r['workers_kib'] / 1024:.0f}" if r["workers_kib"] else "-"
        each = " ".join(f"{x['elapsed']:.1f}" for x in rs)
        cpu = statistics.median(x["cpu"] for x in rs)
        wcpu = statistics.median(x["workers_cpu"] for x in rs)
        print(f"{name:<26}{r['distinct']:>11,}{r['depth']:>6}{t:>9.2f}{each:>22}{cpu:>7.2f}{wcpu:>9.2f}"
              f"{r['distinct'] / t:>12,.0f}{r['peak_kib'] / 1024:>9.0f}{worker:>8}{per_state:>8.0f}{store:>11}")
    first = configs[0][0]
    for name, _ in configs[1:]:
        ratio = statistics.median(x["elapsed"] for x in runs[first]) / statistics.median(
            x["elapsed"] for x in runs[name])
        print(f"speed-up of '{name}' over '{first}': {ratio:.2f}x")
    amdahl(runs, configs)
    tlc = TLC.get((args.replicas, args.max_leader_epoch))
    if tlc:
        print(f"TLC (published, same machine kind, quiet): {tlc['states']:,} states; 2 workers "
              f"{', '.join(f'{s:.1f} s' for s in tlc['2 workers'])}"
              + (f"; 1 worker {', '.join(f'{s:.1f} s' for s in tlc['1 worker'])}" if tlc["1 worker"] else "")
              + (f"; {tlc['memory']} peak" if tlc["memory"] else ""))
        best = min(statistics.median(x["elapsed"] for x in runs[name]) for name, _ in configs)
        print(f"fastest isrcheck row vs TLC 2 workers (best TLC run): {min(tlc['2 workers']) / best:.1f}x")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
