"""The sharded parallel engine's scaling, projected on a machine with fewer cores than workers.

Runs the N workers' phases one after another in one process (the same ``Shard`` code the forked
workers run; the bulk files go through the same exchange folder) and times each worker's part of
each phase in CPU seconds. On N dedicated cores a phase takes as long as its slowest worker, so
the projected wall time is the sum over phases of the slowest worker's CPU, plus the coordinator's
serial part (joining and untagging each level's merged keys, timed here too). Printed per worker
count: the workers' CPU in all (it grows with N: with N owners, (N - 1)/N of the routed successors
go to another worker), the projected wall and its speed-up over one worker and over one process
(timed here as well, ``isrcheck.check(..., workers=1)``). What it cannot show: memory bandwidth
shared by N processes, and the machine's other load.

Usage: python bench/bench_shards.py [--max-leader-epoch 2] [--workers 1 2 4 8 16]
"""

from __future__ import annotations

import argparse
import gc
import time
from collections import defaultdict

from isrcheck.explorer.registry import build_model
from isrcheck.explorer.search.parallel.channel import Exchange
from isrcheck.explorer.search.parallel.engine import _Context
from isrcheck.explorer.search.parallel.merge import split_points, untag
from isrcheck.explorer.search.parallel.shard import Shard
from isrcheck.explorer.selection import select_properties

from isrcheck import check

PROPERTIES = ["WeakIsr", "StrongIsr"]


def project(model_options: dict, workers: int) -> dict:
    """Every level's phases for ``workers`` shards, one after another: CPU per worker and phase."""
    model = build_model("classic", model_options)
    props = select_properties(model, PROPERTIES)
    ctx = _Context(model, props, None, "exact", model.pack, model.unpack)
    exchange = Exchange()
    inits = [model.pack(s) for s in model.init_states()]
    shards = [Shard(ctx, w, workers, exchange) for w in range(workers)]
    for shard in shards:
        shard.sampled = 10**9  # the contract audit is not what is measured
        shard.adopt(inits, inits, 0)
    clock = time.process_time
    critical = serial = 0.0
    total: dict[str, float] = defaultdict(float)
    level, first, size, offset, renumber = 0, 0, len(inits), len(inits), None
    gc.collect()
    gc.disable()  # as in the workers
    try:
        while size:
            for phase in ("expand", "settle", "merge"):
                slowest = 0.0
                parts = split_points(first, size, workers) if phase == "merge" else None
                for w, shard in enumerate(shards):
                    start = clock()
                    if phase == "expand":
                        if renumber is not None:
                            shard.renumber(level - 1, renumber)
                        shard.expand(level, frozenset(), False)
                    elif phase == "settle":
                        shard.settle(level, frozenset())
                    else:
                        shard.merge(level, *parts[w])
                    spent = clock() - start
                    total[phase] += spent
                    slowest = max(slowest, spent)
                critical += slowest
            start = clock()
            for w in range(workers):
                exchange.remove_file(exchange.name(level, "keys", w))
            keys, tags = untag(b"".join(exchange.take(exchange.name(level, "part", w)) for w in range(workers)))
            exchange.write(exchange.name(level, "tags"), tags)
            serial += clock() - start
            first, size, renumber = offset, len(keys), offset
            offset += len(keys)
            level += 1
    finally:
        gc.enable()
        exchange.remove()
    return {"states": offset, "cpu": sum(total.values()), "phases": dict(total), "critical": critical,
            "serial": serial}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--max-leader-epoch", type=int, default=2)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    args = ap.parse_args()
    options = {"generation": "kip320", "replicas": args.replicas, "max_leader_epoch": args.max_leader_epoch}
    start = time.process_time()
    one = check(build_model("classic", options), properties=PROPERTIES, workers=1)
    one_cpu = time.process_time() - start
    print(f"classic kip320 {args.replicas}/2/2/{args.max_leader_epoch}, WeakIsr StrongIsr, {one.distinct_states:,} "
          f"states; one process: {one_cpu:.2f} CPU s. Workers' phases run one after another, CPU seconds; "
          "projected wall on N dedicated cores = slowest worker of each phase + coordinator's serial part")
    print(f"{'workers':>7}{'CPU s, all':>11}{'expand':>8}{'settle':>8}{'merge':>7}{'serial':>8}{'proj. wall':>11}"
          f"{'vs 1 worker':>12}{'vs 1 process':>13}")
    base = None
    for n in args.workers:
        r = project(options, n)
        assert r["states"] == one.distinct_states, (r["states"], one.distinct_states)
        wall = r["critical"] + r["serial"]
        base = base or wall
        p = r["phases"]
        print(f"{n:>7}{r['cpu']:>11.2f}{p['expand']:>8.2f}{p['settle']:>8.2f}{p['merge']:>7.2f}{r['serial']:>8.2f}"
              f"{wall:>11.2f}{base / wall:>11.1f}x{one_cpu / wall:>12.1f}x", flush=True)


if __name__ == "__main__":
    main()
