"""What an HTML trace report weighs: page size and time to build it, for K1 and K8 and for a
30-state random walk of the 3-replica model (the size the issue bounds at 200 KB), with and
without the Kafka picture (``picture`` removed: the generic table of fields alone).

Usage: python bench/bench_html.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from isrcheck.explorer.check import check  # noqa: E402
from isrcheck.explorer.registry import build_model  # noqa: E402
from isrcheck.explorer.scenarios import get_scenario  # noqa: E402

from tests.fixtures.report_sample import sample_model, sample_page, walk  # noqa: E402


class _NoPicture:
    """The same model seen without its ``picture`` hook."""

    def __init__(self, model):
        self._m = model

    def __getattr__(self, name):
        if name == "picture":
            raise AttributeError(name)
        return getattr(self._m, name)


def page(model, trace) -> tuple[int, float]:
    started = time.perf_counter()
    _, text = sample_page(model, trace, name="t")
    return len(text.encode()), time.perf_counter() - started


def main() -> None:
    cases = []
    for sid in ("K1", "K8"):
        sc = get_scenario(sid)
        model = build_model(sc.model, dict(sc.options))
        cases.append((sid, model, check(model, properties=list(sc.properties)).violations[0].trace))
    model = sample_model()
    cases.append(("walk 3/3/4/3", model, walk(model, 30)))
    print(f"{'trace':<14}{'states':>7}{'page bytes':>12}{'build ms':>10}{'no picture':>12}")
    for name, model, trace in cases:
        size, took = page(model, trace)
        bare, _ = page(_NoPicture(model), trace)
        print(f"{name:<14}{len(trace):>7}{size:>12,}{took * 1000:>10.1f}{bare:>12,}")


if __name__ == "__main__":
    main()
