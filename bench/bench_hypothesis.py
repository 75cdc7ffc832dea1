"""How fast Hypothesis finds each buggy protocol generation's violation, against exhaustive search.

For every (generation, bounds, property) case: run the Hypothesis state machine of
``isrcheck.explorer.stateful`` under ``--seeds`` different seeds (random generation, no example database)
and report the median number of examples (machine runs) and seconds until the first failing run,
the median total seconds including shrinking, the median shrunk trace length, and the shortest
trace length that ``isrcheck.explorer.check`` proves. Prints figures; asserts nothing about time.

    PYTHONPATH=. .venv/bin/python bench/bench_hypothesis.py            # the default cases
    PYTHONPATH=. .venv/bin/python bench/bench_hypothesis.py --seeds 10 --cases kip101:2/2/2/2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import Phase, seed, settings  # noqa: E402
from isrcheck.explorer.stateful import find_violation, machine_for  # noqa: E402

from isrcheck import check  # noqa: E402

# generation:replicas/log_size/max_records/max_leader_epoch[:property[:max_steps]]
DEFAULT_CASES = (
    "truncate-to-hw:2/2/2/2:WeakIsr:20",
    "truncate-to-hw:2/2/2/2:StrongIsr:20",
    "kip101:2/2/2/2:StrongIsr:20",
    "kip279:3/2/2/2:StrongIsr:20",
    "kip320-first-try:3/2/2/2:StrongIsr:20",
    "truncate-to-hw:3/3/4/4:StrongIsr:30",
    "kip101:3/3/4/4:StrongIsr:30",
    "kip279:3/3/4/4:StrongIsr:30",
    "kip320-first-try:3/3/4/4:StrongIsr:30",
)


def parse_case(text: str) -> tuple[str, dict[str, int], str, int | None]:
    generation, bounds, prop, steps = (text.split(":") + ["StrongIsr", ""])[:4]
    r, log, rec, ep = (int(x) for x in bounds.split("/"))
    bounds_kw = {"replicas": r, "log_size": log, "max_records": rec, "max_leader_epoch": ep}
    return generation, bounds_kw, prop, int(steps) if steps else None


def run_case(text: str, seeds: int, budget: int, max_steps: int | None, exhaustive: bool, shrink: bool = True) -> dict:
    from isrcheck.model import make_model

    generation, bounds, prop, case_steps = parse_case(text)
    max_steps = case_steps or max_steps
    model = make_model(generation=generation, **bounds)
    shortest = None
    # exhaustive search is cheap at the spec's bounds (x/2/2/2) only
    if exhaustive and (bounds["log_size"], bounds["max_records"], bounds["max_leader_epoch"]) == (2, 2, 2):
        result = check(model, properties=[prop])
        shortest = len(result.violations[0].trace) if result.violations else None
    found, examples, first_seconds, total_seconds, lengths, first_lengths = 0, [], [], [], [], []
    for s in range(seeds):
        machine = machine_for(model, properties=[prop], max_steps=max_steps, name=f"Bench{s}")
        seed(s)(machine)
        config = settings(database=None, derandomize=False, max_examples=budget, deadline=None,
                          phases=[Phase.generate, Phase.shrink] if shrink else [Phase.generate])
        started = time.perf_counter()
        exc = find_violation(machine, settings=config)
        total = time.perf_counter() - started
        stats = machine.stats
        if exc is None:
            continue
        found += 1
        examples.append(stats.first_failure)
        first_seconds.append(stats.first_failure_seconds)
        first_lengths.append(stats.first_failure_length)
        total_seconds.append(total)
        lengths.append(len(exc.violation.trace))
    med = statistics.median
    return {
        "case": text.rsplit(":", 1)[0] if case_steps else text,
        "steps": max_steps,
        "found": f"{found}/{seeds}",
        "examples": med(examples) if examples else None,
        "first_s": med(first_seconds) if first_seconds else None,
        "total_s": med(total_seconds) if total_seconds else None,
        "first_len": med(first_lengths) if first_lengths else None,
        "shrunk_len": med(lengths) if lengths else None,
        "shrunk_range": f"{min(lengths)}-{max(lengths)}" if lengths else "-",
        "shortest": shortest,
    }


def fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="*", default=list(DEFAULT_CASES),
                        help="generation:R/L/M/E[:property] (default: the buggy generations)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=5000, help="max_examples per seed")
    parser.add_argument("--max-steps", type=int, default=None,
                        help="actions per run when a case names none (default: Hypothesis's 50)")
    parser.add_argument("--no-shrink", action="store_true", help="measure finding only (shrinking is the slow part)")
    parser.add_argument("--no-exhaustive", action="store_true", help="skip isrcheck.explorer.check (for big bounds)")
    args = parser.parse_args(argv)
    head = ["case", "steps", "found", "examples", "first_s", "total_s", "first_len", "shrunk_len", "shrunk_range",
            "shortest"]
    print(f"Hypothesis budget {args.budget} examples per seed, {args.seeds} seeds, shrink {not args.no_shrink}, "
          f"max_steps {args.max_steps or 'default'}; medians over the seeds that found the bug")
    print(" | ".join(head))
    for case in args.cases:
        row = run_case(case, args.seeds, args.budget, args.max_steps, not args.no_exhaustive, not args.no_shrink)
        print(" | ".join(fmt(row[h]) for h in head), flush=True)


if __name__ == "__main__":
    main()
