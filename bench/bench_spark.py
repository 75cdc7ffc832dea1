"""Local engine vs Spark engine: states per second across state-space sizes, per-level overhead and
peak memory. Prints figures; asserts nothing about time.

    python bench/bench_spark.py                       # Counters at 10^3 .. 10^5 states, local[2]
    python bench/bench_spark.py --sizes 3,4,5,6       # up to 10^6
    python bench/bench_spark.py --replication kip320:2:2:2:2 --master local[2]

Counters(n, 10) has 10**n states and 9n+1 levels; the replication model is built with
``isrcheck.model.make_model(generation=..., replicas=..., log_size=..., max_records=...,
max_leader_epoch=...)``.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PYTHONPATH", str(ROOT))


def jvm_peak_mb(sc) -> float:
    try:
        pid = sc._jvm.java.lang.ProcessHandle.current().pid()
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except Exception:
        pass
    return float("nan")


def driver_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(label, make, args, sc):
    from isrcheck import check
    model = make()
    t = time.monotonic()
    local = check(model, stop_at_first=False)
    t_local = time.monotonic() - t
    t = time.monotonic()
    spark = check(model, engine="spark", stop_at_first=False, driver_threshold=args.driver_threshold,
                  partitions=args.partitions)
    t_spark = time.monotonic() - t
    assert (spark.distinct_states, spark.generated_states, spark.depth) == (
        local.distinct_states, local.generated_states, local.depth), "engines disagree"
    levels = spark.stats["level_stats"]
    on_spark = [lv for lv in levels if lv["where"] != "driver"]
    small = [lv["seconds"] for lv in on_spark if lv["frontier"] < 1000]
    overhead = sorted(small)[len(small) // 2] if small else float("nan")
    print(f"{label:<28} {local.distinct_states:>10,} {len(levels):>6} | local {t_local:7.2f} s "
          f"{local.distinct_states / t_local:>9,.0f}/s | spark {t_spark:7.2f} s "
          f"{spark.distinct_states / t_spark:>9,.0f}/s | x{t_spark / t_local:5.1f} | "
          f"small-level median {overhead:5.2f} s | driver {driver_peak_mb():6.0f} MB jvm {jvm_peak_mb(sc):6.0f} MB",
          flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="3,4,5", help="powers of ten of the Counters state counts (default 3,4,5)")
    p.add_argument("--replication", action="append", default=[],
                   help="generation:replicas:log_size:max_records:max_leader_epoch (repeatable)")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--partitions", type=int, default=None)
    p.add_argument("--driver-threshold", type=int, default=5000)
    p.add_argument("--driver-memory", default="4g")
    args = p.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    t = time.monotonic()
    spark = (SparkSession.builder.master(args.master).config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", args.driver_memory)
             .getOrCreate())
    sc = spark.sparkContext
    sc.parallelize(range(4), 2).count()
    print(f"session {args.master}: {time.monotonic() - t:.1f} s to the first job; "
          f"partitions {args.partitions or max(2, 2 * sc.defaultParallelism)}, "
          f"driver threshold {args.driver_threshold}", flush=True)
    print(f"{'model':<28} {'states':>10} {'levels':>6}", flush=True)
    from tests.fixtures.models import Counters

    for n in (int(x) for x in args.sizes.split(",") if x):
        run(f"Counters({n}, 10)", lambda n=n: Counters(n, 10), args, sc)
    for spec in args.replication:
        from isrcheck.model import make_model

        g, r, ls, mr, me = spec.split(":")
        run(f"{g} {r}/{ls}/{mr}/{me}", lambda g=g, r=r, ls=ls, mr=mr, me=me: make_model(
            generation=g, replicas=int(r), log_size=int(ls), max_records=int(mr), max_leader_epoch=int(me)),
            args, sc)
    spark.stop()


if __name__ == "__main__":
    main()
