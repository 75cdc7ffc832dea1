"""Sum the per-phase CPU clock of the Spark engine's tasks (``isrcheck.explorer.search.spark.clock``).

    ISRCHECK_SPARK_CLOCK=/tmp/clock.tsv python bench/bench_spark.py --sizes "" --replication kip320:3:2:2:3 --no-local
    python bench/bench_spark_clock.py /tmp/clock.tsv

Prints the Python workers' CPU seconds by stage and phase over the whole run, the tasks counted, and
the distinct worker processes that ran them. Prints figures only; asserts nothing. A file that is
missing or holds a line the clock did not write (a task killed in the middle of its append) is
refused with exit status 2, naming the file and the line.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from isrcheck.explorer.search.spark.clock import FIRST


def _refuse(message: str) -> None:
    """Bad input: the message on stderr, exit status 2 (1 is a violation's, which this never reports)."""
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", help="the file ISRCHECK_SPARK_CLOCK named")
    args = p.parse_args()
    cpu: dict[tuple[str, str], float] = defaultdict(float)
    # tasks are counted by their first line, not by (level, partition, pid): the parent copy's
    # tasks carry no level or partition, and a task run twice in one worker is two tasks
    tasks: dict[str, int] = defaultdict(int)
    pids: dict[str, set] = defaultdict(set)
    order: list[tuple[str, str]] = []
    try:
        with open(args.path) as fh:
            for number, line in enumerate(fh, start=1):
                try:
                    if not line.endswith("\n"):
                        raise ValueError("no end of line")  # an append cut short
                    stage, _level, _index, phase, seconds, pid = line.rstrip("\n").split("\t")
                    spent = float(seconds)
                except ValueError:
                    _refuse(f"{args.path}, line {number}: not a line of the clock ({line.strip()[:80]!r}); "
                            "remove it (a task killed while it wrote) or run the benchmark again")
                key = (stage, phase)
                if key not in cpu:
                    order.append(key)
                cpu[key] += spent
                tasks[stage] += phase == FIRST
                pids[stage].add(pid)
    except OSError as exc:
        _refuse(f"cannot read {args.path}: {exc.strerror}; name the file ISRCHECK_SPARK_CLOCK named")
    except UnicodeDecodeError:
        _refuse(f"{args.path} is not text: name the file ISRCHECK_SPARK_CLOCK named")
    stages = sorted({s for s, _ in order}, key=[s for s, _ in order].index)
    grand = 0.0
    for stage in stages:
        here = [(ph, cpu[(s, ph)]) for s, ph in order if s == stage]
        sub = sum(v for _, v in here)
        grand += sub
        print(f"{stage}: {sub:.2f} s in {tasks[stage]} tasks, {len(pids[stage])} worker processes")
        for phase, seconds in here:
            print(f"    {phase:<36} {seconds:8.2f} s")
    print(f"all marked: {grand:.2f} s")


if __name__ == "__main__":
    main()
