"""Which fairness each Kafka liveness property needs (``isrcheck.properties.liveness``, ``isrcheck.model.fairness``).

Explores each configuration once, keeping the state graph, then re-runs only the fair-cycle search
under variations of the model's fairness table: no fairness, the model's table (weak fairness of
the steps Kafka takes on its own), the table without one step (for every broker at once), and the
table with every step strongly fair. A step is *needed* by a property when dropping its fairness
makes the property fail. Prints one line per property and configuration.

Usage: python bench/liveness_fairness.py
"""

from __future__ import annotations

import time

from isrcheck.explorer.liveness.checker import labels_of
from isrcheck.explorer.liveness.fair_cycles import FairnessMasks, find_lasso
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.selection import select_properties

BASE = {"generation": "kip320", "replicas": 2, "log_size": 2, "max_records": 2, "max_leader_epoch": 2}
CONFIGS = [
    ("classic", {}),
    ("acks=all, 1 crash, unclean off", {"acks": "all", "max_crashes": 1, "stops": "crash"}),
    ("acks=all, 1 crash, unclean any", {"acks": "all", "max_crashes": 1, "stops": "crash", "unclean_election": "any"}),
]
PROPS = ["LeaderEventuallyElected", "EventuallyOnline", "FollowerEventuallyInIsr", "AckedWriteEventuallyAnswered"]


def step_of(family: str) -> str:
    return family.split(" ")[0]


def verdicts(graph, props, fair: dict[str, str]) -> dict[str, bool]:
    """Property name -> holds, under ``fair``."""
    _, where = labels_of(props)
    masks = FairnessMasks.of(graph, fair)
    out = {}
    for p in props:
        goal_bit, trigger_bit = where[p.name]
        lasso, _ = find_lasso(graph, masks, goal=lambda i, b=1 << goal_bit: bool(graph.bits[i] & b),
                              trigger=None if trigger_bit is None else
                              (lambda i, b=1 << trigger_bit: bool(graph.bits[i] & b)))
        out[p.name] = lasso is None
    return out


def main() -> None:
    from isrcheck.explorer.liveness.checker import run_with_graph

    for name, options in CONFIGS:
        model = build_model("classic", {**BASE, **options})
        names = [p for p in PROPS if p in {q.name for q in model.properties()}]
        props = select_properties(model, names)
        started = time.monotonic()
        result = run_with_graph(model, props, symmetry=False, store="exact", fairness={}, stop_at_first=False)
        graph = result.graph
        table = model.fairness()
        steps = sorted({step_of(f) for f in table})
        print(f"\n{name}: {result.distinct_states:,} states, explored in {time.monotonic() - started:.1f} s")
        base = verdicts(graph, props.liveness, table)
        none = verdicts(graph, props.liveness, {})
        strong = verdicts(graph, props.liveness, dict.fromkeys(table, "strong"))
        needed = {p: [] for p in names}
        for step in steps:
            without = verdicts(graph, props.liveness, {f: k for f, k in table.items() if step_of(f) != step})
            for p in names:
                if base[p] and not without[p]:
                    needed[p].append(step)
        for p in names:
            verdict = "holds" if base[p] else ("holds only under strong fairness" if strong[p] else "fails")
            print(f"  {p}: {verdict} under the model's weak fairness; without fairness "
                  f"{'holds' if none[p] else 'fails'}; needs weak fairness of: {', '.join(needed[p]) or '-'}")


if __name__ == "__main__":
    main()
