"""Spark beyond breadth-first search: swarm simulation and proofs, one process against Spark masters.

Prints figures side by side in one run; asserts only that every engine gives the same results.

    python bench/bench_spark_swarm.py                                   # local[2] and local-cluster[2,1,2048]
    python bench/bench_spark_swarm.py --master 'local[2]' --behaviours 20000 --no-houdini

Rows:
- swarm: ``isrcheck simulate`` of KIP-320 at 3 replicas (epochs, log size and records 3; depth 100;
  WeakIsr and StrongIsr, which hold, so every behaviour is walked), the one-process engine (one
  generator), the one-process swarm (``isrcheck.explorer.search.swarm.swarm``, the behaviours Spark
  walks) and ``--engine spark``;
- prove: StrongIsr of KIP-320 at 2 replicas with its 21 lemmas (docs/proofs.md), local ``prove``,
  the distributed scheduling answered in this process (``local_asker``: the queries Spark gets,
  asked one after the other) and ``--engine spark``;
- houdini: LeaderInIsr of KIP-279 at 2 replicas from every built-in template (nine are dropped).

Each Spark master runs in a child process of its own (one SparkContext per process); its session
start is reported apart from the work.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SWARM_MODEL = {"generation": "kip320", "replicas": 3, "max_leader_epoch": 3, "log_size": 3, "max_records": 3}
PROOFS = {
    "prove": ({"generation": "kip320", "replicas": 2}, ["StrongIsr"], "isr", False),
    "houdini": ({"generation": "kip279", "replicas": 2}, ["LeaderInIsr"], "all", True),
}


def _lemmas(sym: Any, which: str) -> dict[str, Any]:
    from isrcheck.model.symbolic.lemmas import ISR_PROOF_LEMMAS

    builtin = sym.lemmas()
    return dict(builtin) if which == "all" else {n: builtin[n] for n in ISR_PROOF_LEMMAS}


def _swarm_summary(result: Any) -> list:
    return [result.behaviours, result.states, result.longest, [v.property for v in result.violations],
            sorted(result.reached)]


def _proof_summary(result: Any) -> list:
    return [result.verdict, result.lemmas, result.stats.get("dropped"), result.cti.property if result.cti else None]


def one_process(args: argparse.Namespace) -> dict[str, Any]:
    from isrcheck.explorer.registry import build_model
    from isrcheck.explorer.search.simulate import simulate
    from isrcheck.explorer.search.swarm import swarm
    from isrcheck.explorer.symbolic.distributed import ProofSetup, local_asker, prove_distributed
    from isrcheck.explorer.symbolic.induction import prove
    from isrcheck.model.symbolic import make_symbolic

    out: dict[str, Any] = {}
    model = build_model("classic", SWARM_MODEL)
    sim = {"depth": 100, "behaviours": args.behaviours, "seed": 1}
    t = time.monotonic()
    r = simulate(model, **sim)
    out["simulate"] = (time.monotonic() - t, r.states, _swarm_summary(r))
    t = time.monotonic()
    r = swarm(model, **sim)
    out["swarm"] = (time.monotonic() - t, r.states, _swarm_summary(r))
    for name, (options, props, which, houdini) in PROOFS.items():
        if name == "houdini" and not args.houdini:
            continue
        explicit = build_model("classic", options)
        sym = make_symbolic(explicit, unbounded=True)
        lemmas = _lemmas(sym, which)
        t = time.monotonic()
        r = prove(sym, properties=props, lemmas=lemmas, houdini=houdini)
        out[name] = (time.monotonic() - t, None, _proof_summary(r))
        t = time.monotonic()
        r = prove_distributed(sym, ask_many=local_asker(ProofSetup("classic"), explicit), properties=props,
                              lemmas=lemmas, houdini=houdini)
        out[name + "-waves"] = (time.monotonic() - t, r.stats["queries"], _proof_summary(r))
    return out


def child(payload: dict[str, Any]) -> dict[str, Any]:
    """In a process of its own: one Spark master, session start apart from the work."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from isrcheck.explorer.cli.symbolic import spark_asker
    from isrcheck.explorer.registry import build_model
    from isrcheck.explorer.search.spark.session import get_session
    from isrcheck.explorer.search.spark.swarm import simulate_spark
    from isrcheck.explorer.symbolic.distributed import ProofSetup, prove_distributed
    from isrcheck.model.symbolic import make_symbolic

    master = payload["master"]
    t = time.monotonic()
    spark, _ = get_session(master)
    spark.sparkContext.setLogLevel("ERROR")
    spark.sparkContext.parallelize([0], 1).count()  # the first job starts the Python workers
    out: dict[str, Any] = {"session": (time.monotonic() - t, None, None)}
    model = build_model("classic", SWARM_MODEL)
    t = time.monotonic()
    r = simulate_spark(model, depth=100, behaviours=payload["behaviours"], seed=1, master=master)
    out["swarm"] = (time.monotonic() - t, r.states, _swarm_summary(r))
    for name, (options, props, which, houdini) in PROOFS.items():
        if name == "houdini" and not payload["houdini"]:
            continue
        explicit = build_model("classic", options)
        sym = make_symbolic(explicit, unbounded=True)
        t = time.monotonic()
        r = prove_distributed(sym, ask_many=spark_asker(master, explicit, ProofSetup("classic")), properties=props,
                              lemmas=_lemmas(sym, which), houdini=houdini)
        out[name] = (time.monotonic() - t, r.stats["queries"], _proof_summary(r))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--master", action="append", help="Spark master (repeatable; default local[2] and "
                                                     "local-cluster[2,1,2048])")
    p.add_argument("--behaviours", type=int, default=100_000)
    p.add_argument("--no-houdini", dest="houdini", action="store_false", help="skip the Houdini row (the longest)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    masters = args.master or ["local[2]", "local-cluster[2,1,2048]"]
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    here = one_process(args)
    columns = {"one process": here}
    for master in masters:
        payload = json.dumps({"master": master, "behaviours": args.behaviours, "houdini": args.houdini})
        proc = subprocess.run([sys.executable, __file__, "--child", payload], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        if proc.returncode != 0:
            raise SystemExit(f"{master} failed:\n{proc.stderr[-3000:]}")
        columns[master] = json.loads(proc.stdout.splitlines()[-1])
    for master in masters:  # the same results everywhere, or the figures mean nothing
        there = columns[master]
        assert there["swarm"][2] == here["swarm"][2], (master, "swarm", there["swarm"][2], here["swarm"][2])
        for name in PROOFS:
            if name in there:
                assert there[name][2] == here[name][2], (master, name, there[name][2], here[name][2])
    rows = [("session start", "session"), ("simulate, one generator", "simulate"), ("swarm", "swarm"),
            ("prove StrongIsr 2 repl.", "prove"), ("  the same queries in waves", "prove-waves"),
            ("houdini kip279 2 repl.", "houdini"), ("  the same queries in waves", "houdini-waves")]
    print(f"{'':<30}" + "".join(f"{name:>26}" for name in columns))
    for label, key in rows:
        cells = []
        for column in columns.values():
            if key not in column:
                cells.append(f"{'':>26}")
                continue
            seconds, count, _ = column[key]
            extra = ""
            if key in ("simulate", "swarm"):
                extra = f" {count / seconds:>9,.0f}/s"
            elif count is not None:
                extra = f" ({count} q)"
            cells.append(f"{seconds:>8.2f} s{extra:>16}")
        if any(c.strip() for c in cells):
            print(f"{label:<30}" + "".join(cells))
    print(f"swarm: {args.behaviours:,} behaviours of KIP-320 3/3/3/3 (depth 100), "
          f"{here['swarm'][1]:,} states; prove results: " + ", ".join(
              f"{k} {v[2][0]}" for k, v in here.items() if k in PROOFS))


if __name__ == "__main__":
    main()
