"""What an HTML trace report weighs: page size and time to build it, for K1 and K8 and for a
30-state random walk of the 3-replica model (the size the issue bounds at 200 KB), with and
without the Kafka picture (``picture`` removed: the generic table of fields alone).

Usage: python bench/bench_html.py
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.check import check  # noqa: E402
from explorer.html import render  # noqa: E402
from explorer.registry import build_model  # noqa: E402
from explorer.report_html import header, report, trace_entry  # noqa: E402
from explorer.result import Step, Trace  # noqa: E402
from explorer.scenarios import get_scenario  # noqa: E402


class _NoPicture:
    """The same model seen without its ``picture`` hook."""

    def __init__(self, model):
        self._m = model

    def __getattr__(self, name):
        if name == "picture":
            raise AttributeError(name)
        return getattr(self._m, name)


def walk(model, length: int, seed: int = 7) -> Trace:
    rng = random.Random(seed)
    state = model.init_states()[0]
    steps = [Step(None, state)]
    while len(steps) < length:
        live = [(a, t) for a, t in model.successors(state) if list(model.successors(t))]
        calm = [x for x in live if not type(x[0]).__name__.startswith("Controller")]
        action, state = rng.choice(calm if calm and rng.random() < 0.85 else live)
        steps.append(Step(action, state))
    return Trace(tuple(steps))


def page(model, trace: Trace) -> tuple[int, float]:
    started = time.perf_counter()
    text = render(report(header(model_name="classic", options={}, properties=[], verdict="-", tone="good"),
                         [trace_entry(model, trace, name="t")], title="t"))
    return len(text.encode()), time.perf_counter() - started


def main() -> None:
    cases = []
    for sid in ("K1", "K8"):
        sc = get_scenario(sid)
        model = build_model(sc.model, dict(sc.options))
        cases.append((sid, model, check(model, properties=list(sc.properties)).violations[0].trace))
    model = build_model("classic", {"replicas": 3, "log_size": 3, "max_records": 4, "max_leader_epoch": 3})
    cases.append(("walk 3/3/4/3", model, walk(model, 30)))
    print(f"{'trace':<14}{'states':>7}{'page bytes':>12}{'build ms':>10}{'no picture':>12}")
    for name, model, trace in cases:
        size, took = page(model, trace)
        bare, _ = page(_NoPicture(model), trace)
        print(f"{name:<14}{len(trace):>7}{size:>12,}{took * 1000:>10.1f}{bare:>12,}")


if __name__ == "__main__":
    main()
