"""The options' successor functions of two source trees in one process: CPU seconds of
``successors`` over every reachable state of the durability and rack scenarios' configurations,
the two trees alternated (before, after, before, ...), and the successors of a sample of states
compared (the same lists, in order, or it stops).

Usage: python bench/bench_option_steps_ab.py BASE_TREE [--rounds 4] [NAME ...]
Run with this tree's environment (its ``isrcheck``); BASE_TREE (a clone of the commit before a
change) is imported beside it as the package ``base`` (its ``model/`` by relative imports; what it
imports absolutely, the explorer and the properties, is this tree's). Pure Python on both sides
(``ISRCHECK_PURE_PYTHON=1``: configurations with options never use the C function).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types
from typing import Any

os.environ["ISRCHECK_PURE_PYTHON"] = "1"

BOUNDS = {"log_size": 2, "max_records": 2, "max_leader_epoch": 2}
CONFIGS: dict[str, dict[str, Any]] = {
    "K2 lossy stops x2": {"generation": "truncate-to-hw", **BOUNDS, "max_crashes": 2, "stops": "lossy"},
    "K8 crash, unclean any": {**BOUNDS, "acks": "all", "max_crashes": 1, "stops": "crash", "unclean_election": "any"},
    "K8 unclean highest-last-epoch": {**BOUNDS, "acks": "all", "max_crashes": 1, "stops": "crash",
                                      "unclean_election": "highest-last-epoch"},
    "K10 lossy, min ISR 2": {**BOUNDS, "acks": "all", "min_insync_replicas": 2, "max_crashes": 1, "stops": "lossy"},
    "stops all": {**BOUNDS, "max_crashes": 1, "stops": "all"},
    "2 zones, zone failure, reads leader": {"generation": "kip279", "max_records": 1, "azs": 2,
                                            "max_az_failures": 1, "consumer_reads": "leader"},
    "reads any": {**BOUNDS, "consumer_reads": "any"},
}


def reachable(model: Any) -> list:
    frontier = list(model.init_states())
    seen, states = set(frontier), list(frontier)
    while frontier:
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        states += nxt
        frontier = nxt
    return states


def cpu(fn: Any, states: list) -> float:
    start = time.process_time()
    for s in states:
        fn(s)
    return round(time.process_time() - start, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("names", nargs="*", default=list(CONFIGS))
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    base = types.ModuleType("base")
    base.__path__ = [os.path.abspath(args.base)]
    sys.modules["base"] = base
    from base.model.factory import make_model as make_before  # type: ignore[import-not-found]
    from isrcheck.model.factory import make_model

    for name in args.names:
        before, after = make_before(**CONFIGS[name]), make_model(**CONFIGS[name])
        states = reachable(after)
        for s in states[:: max(1, len(states) // 2000)]:
            want = [(repr(a), t) for a, t in before.successors(s)]
            if [(repr(a), t) for a, t in after.successors(s)] != want:
                sys.exit(f"{name}: the successors of {s} differ")
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.rounds):
            times["before"].append(cpu(before.successors, states))
            times["after"].append(cpu(after.successors, states))
        print(json.dumps({"config": name, "states": len(states), **times}), flush=True)


if __name__ == "__main__":
    main()
