"""The KRaft family's explicit successors, this checkout against another one's, in one process: the
same successors (every reachable state of eight configurations, each state's list of
``repr((action, next_state))`` equal, and a BLAKE2b digest of them all printed) and the CPU time
of ``successors`` over every reachable state, the two versions alternated.

The other checkout's ``model/kraft`` package is loaded beside this one under another name
(``base_kraft``) and built on this checkout's config and layout, so both versions run on the same
states, tables and interpreter. Nothing asserts on time (docs/architecture.md quotes the figures).

Usage: python bench/kraft_steps_ab.py BASE_CHECKOUT [--rounds N] [--only I]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

from isrcheck.explorer.registry import build_model

# K7's anchor, kip966 at 3 brokers (and with the KAFKA-19996 fix), 2-broker ones with leader shrinks
# and both shutdown kinds, avoid-last-replica-standing with controlled stops, the split fetch, a
# reassignment: every step and option of the family.
CONFIGS: list[dict[str, Any]] = [
    {"generation": "kraft-3.5", "replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2,
     "max_fencings": 1, "max_crashes": 0, "stops": "all"},
    {"generation": "kraft-kip966", "replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2,
     "max_fencings": 1, "max_crashes": 0, "stops": "all"},
    {"generation": "kraft-kip966", "replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 1,
     "max_crashes": 1, "stops": "lossy", "max_leader_shrinks": 1},
    {"generation": "kraft-kip966", "replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 1,
     "max_crashes": 1, "stops": "all"},
    {"generation": "kraft-3.5", "replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 1,
     "max_crashes": 1, "stops": "controlled", "max_leader_shrinks": 1, "avoid_last_replica_standing": True},
    {"generation": "kraft-kip966", "replicas": 2, "min_insync_replicas": 2, "max_records": 1, "max_fencings": 1,
     "max_crashes": 1, "stops": "lossy", "split_fetch": True},
    {"generation": "kraft-kip966", "replicas": 2, "spare_brokers": 1, "max_reassignments": 1,
     "min_insync_replicas": 2, "max_records": 1, "max_fencings": 0},
    {"generation": "kraft-kip966", "replicas": 3, "min_insync_replicas": 2, "max_records": 2, "init_isr_size": 3,
     "max_fencings": 1, "max_crashes": 0, "stops": "all", "expand_at_leo_under_min_isr": True},
]


def load_base(checkout: Path) -> Any:
    """``model/kraft`` of ``checkout`` as the package ``base_kraft`` (its absolute imports of
    ``isrcheck`` resolve to this checkout, which the KRaft steps use only for shared helpers)."""
    pkg = checkout / "model" / "kraft"
    spec = importlib.util.spec_from_file_location("base_kraft", pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["base_kraft"] = module
    spec.loader.exec_module(module)
    return importlib.import_module("base_kraft.steps")


def reachable(model: Any) -> list:
    seen = dict.fromkeys(model.init_states())
    frontier = list(seen)
    while frontier:
        frontier = [t for s in frontier for _, t in model.successors(s) if t not in seen and not seen.setdefault(t)]
    return list(seen)


def cpu(fn: Any, states: list) -> float:
    t = time.process_time()
    for s in states:
        fn(s)
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("base", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", type=int, action="append")
    args = ap.parse_args()
    base_steps = load_base(args.base)
    for i, options in enumerate(CONFIGS):
        if args.only and i not in args.only:
            continue
        model = build_model("classic", options)
        base = base_steps.KraftSteps(model.config, model.layout).successors
        states = reachable(model)
        h = hashlib.blake2b(digest_size=16)
        differ = 0
        for s in states:
            mine = repr(model.successors(s))
            differ += mine != repr(base(s))
            h.update(mine.encode())
        times: dict[str, list[float]] = {"base": [], "this": []}
        for _ in range(args.rounds):
            times["base"].append(cpu(base, states))
            times["this"].append(cpu(model.successors, states))
        b, t = min(times["base"]), min(times["this"])
        print(f"[{i}] {len(states):>7} states  digest {h.hexdigest()}  differing states {differ}  "
              f"CPU s base {b:.3f} this {t:.3f} ({100 * (t / b - 1):+.1f} %)  "
              f"all: base {[round(x, 3) for x in times['base']]} this {[round(x, 3) for x in times['this']]}",
              flush=True)


if __name__ == "__main__":
    main()
