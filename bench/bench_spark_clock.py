"""Sum the per-phase CPU clock of the Spark engine's tasks (``isrcheck.explorer.search.spark.clock``).

    ISRCHECK_SPARK_CLOCK=/tmp/clock.tsv python bench/bench_spark.py --sizes "" --replication kip320:3:2:2:3 --no-local
    python bench/bench_spark_clock.py /tmp/clock.tsv

Prints the Python workers' CPU seconds by stage and phase over the whole run, the tasks counted, and
the distinct worker processes that ran them. Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
from collections import defaultdict


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", help="the file ISRCHECK_SPARK_CLOCK named")
    args = p.parse_args()
    cpu: dict[tuple[str, str], float] = defaultdict(float)
    tasks: dict[str, set] = defaultdict(set)
    pids: dict[str, set] = defaultdict(set)
    order: list[tuple[str, str]] = []
    with open(args.path) as fh:
        for line in fh:
            stage, level, index, phase, seconds, pid = line.rstrip("\n").split("\t")
            key = (stage, phase)
            if key not in cpu:
                order.append(key)
            cpu[key] += float(seconds)
            tasks[stage].add((level, index, pid))
            pids[stage].add(pid)
    stages = sorted({s for s, _ in order}, key=[s for s, _ in order].index)
    grand = 0.0
    for stage in stages:
        here = [(ph, cpu[(s, ph)]) for s, ph in order if s == stage]
        sub = sum(v for _, v in here)
        grand += sub
        print(f"{stage}: {sub:.2f} s in {len(tasks[stage])} tasks, {len(pids[stage])} worker processes")
        for phase, seconds in here:
            print(f"    {phase:<36} {seconds:8.2f} s")
    print(f"all marked: {grand:.2f} s")


if __name__ == "__main__":
    main()
