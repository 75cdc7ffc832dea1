"""Local engine vs Spark engine, side by side in one process: wall time, Spark's session start apart
from the search, per-level times, the widest levels' states/s per core against the local engine's,
the bytes a state costs on executors, and peak memory. Prints figures; asserts only that both
engines give the same counts (never anything about time).

    python bench/bench_spark.py                       # Counters at 10^3 .. 10^5 states, local[2]
    python bench/bench_spark.py --sizes 6 --replication kip320:3:2:2:2 --levels
    python bench/bench_spark.py --sizes "" --replication kip320:3:2:2:3 --levels   # the scale goal
    python bench/bench_spark.py --sizes "" --replication kip320:3:2:2:3 --master "local-cluster[2,1,2048]" --no-local
    python bench/bench_spark.py --sizes "" --replication kip320:3:2:2:2 --no-local --jvm-threads --conf KEY=VALUE

Counters(n, 10) has 10**n states and 9n+1 levels (a model without ``pack``: the generic path); the
replication model is ``isrcheck.model.make_model(generation=..., replicas=..., log_size=...,
max_records=..., max_leader_epoch=...)``. The session is created with the settings a user gets
(no ``spark.driver.memory`` unless ``--driver-memory``), and the settings the engine gives a
session it creates (``isrcheck.explorer.search.spark.tuning``); ``--conf KEY=VALUE`` adds or
overrides one (``--conf spark.driver.defaultJavaOptions=`` for the JVM's default compilers).
Spark runs first, so the driver's peak Python memory printed is the Spark run's (the local
engine's run comes after, in the same process).
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


def cpu_s() -> float:
    """CPU seconds of this process and its finished children (the local engine's share)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def spark_cpu_s(sc) -> tuple[float, float]:
    """CPU seconds of Spark's JVM, and of every process under it (Python workers, finished ones
    included), read from /proc: in local mode the executors' work."""
    try:
        jvm = sc._jvm.java.lang.ProcessHandle.current().pid()
        tick = os.sysconf("SC_CLK_TCK")
        stats = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                stats[int(entry.name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]))
        total, todo = 0, [p for p, (ppid, _) in stats.items() if ppid == jvm]
        while todo:
            pid = todo.pop()
            total += stats.get(pid, (0, 0))[1]
            todo.extend(p for p, (ppid, _) in stats.items() if ppid == pid)
        return stats[jvm][1] / tick, total / tick
    except Exception:
        return float("nan"), float("nan")


def executor_jvms_s(sc) -> float:
    """CPU seconds of the executors' own JVMs (``local-cluster``: processes under Spark's JVM that
    are Java, not Python), which ``spark_cpu_s`` counts with the Python workers; 0 in local mode."""
    try:
        jvm = sc._jvm.java.lang.ProcessHandle.current().pid()
        tick = os.sysconf("SC_CLK_TCK")
        total = 0
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                    exe = os.readlink(entry / "exe")
                except OSError:
                    continue
                if int(fields[1]) == jvm and os.path.basename(exe) == "java":
                    total += sum(int(x) for x in fields[11:15])
        return total / tick
    except Exception:
        return float("nan")


def jvm_threads_s(sc) -> dict[str, float]:
    """CPU seconds of the driver JVM's threads, grouped by name with digits dropped (JIT compilers,
    GC, the executors' task threads, the Python runners' writer threads...): where the JVM's share goes."""
    import re

    try:
        jvm = sc._jvm.java.lang.ProcessHandle.current().pid()
        tick = os.sysconf("SC_CLK_TCK")
        groups: dict[str, float] = {}
        for task in Path(f"/proc/{jvm}/task").iterdir():
            try:
                stat = (task / "stat").read_text()
            except OSError:
                continue
            name = re.sub(r"[\d#-]+", " ", stat[stat.index("(") + 1:stat.rindex(")")]).strip()
            fields = stat.rsplit(")", 1)[1].split()
            groups[name] = groups.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
        return groups
    except Exception:
        return {}


def wide(levels: list[dict]) -> tuple[int, float]:
    """(new states, seconds) over the widest levels: those with at least half the widest's new states."""
    on_spark = [lv for lv in levels if lv["where"] != "driver"]
    if not on_spark:
        return 0, 0.0
    top = max(lv["new"] for lv in on_spark)
    chosen = [lv for lv in on_spark if lv["new"] >= top / 2]
    return sum(lv["new"] for lv in chosen), sum(lv["seconds"] for lv in chosen)


def run(label, make, args, sc, cores):
    from isrcheck import check

    model = make()
    t, c, j = time.monotonic(), cpu_s(), spark_cpu_s(sc)
    threads, executors = jvm_threads_s(sc), executor_jvms_s(sc)
    extra = {"replicas": args.replicas} if args.replicas else {}
    spark = check(model, engine="spark", stop_at_first=False, driver_threshold=args.driver_threshold,
                  partitions=args.partitions, **extra)
    after = spark_cpu_s(sc)
    executors = executor_jvms_s(sc) - executors
    threads = {k: v - threads.get(k, 0.0) for k, v in jvm_threads_s(sc).items()}
    t_spark, c_spark, j_spark, w_spark = time.monotonic() - t, cpu_s() - c, after[0] - j[0], after[1] - j[1]
    driver = driver_peak_mb()
    levels = spark.stats["level_stats"]
    on_spark = [lv for lv in levels if lv["where"] != "driver"]
    tail = [lv["seconds"] for lv in on_spark if lv["new"] < 10_000]
    fixed = sorted(tail)[len(tail) // 2] if tail else float("nan")
    new, secs = wide(levels)
    wide_rate = new / secs if secs else float("nan")
    stored = spark.stats.get("stored_bytes") or 0
    if args.no_local:
        t_local = float("nan")
        local_rate = float("nan")
        local_workers = 1
    else:
        t, c = time.monotonic(), cpu_s()
        local = check(model, stop_at_first=False)
        t_local, c_local = time.monotonic() - t, cpu_s() - c
        assert (spark.distinct_states, spark.generated_states, spark.depth) == (
            local.distinct_states, local.generated_states, local.depth), "engines disagree"
        local_rate = local.distinct_states / t_local
        local_workers = local.stats.get("workers") or 1
        print(f"    local engine: {t_local:.2f} s wall, {c_local:.2f} s CPU, {local_workers} worker(s)", flush=True)
    # With --no-local there is nothing to compare with: say so rather than print nan.
    against = "local (not run)" if args.no_local else f"local {t_local:7.2f} s {local_rate:>9,.0f}/s"
    ratio = "" if args.no_local else f" x{t_spark / t_local:5.2f}"
    print(f"{label:<22} {spark.distinct_states:>10,} states {len(levels):>3} levels | {against} | "
          f"spark {t_spark:7.2f} s{ratio} (CPU: driver {c_spark:.1f} s, "
          f"JVM {j_spark:.1f} s, Python workers {w_spark:.1f} s)",
          flush=True)
    shares = "" if args.no_local else (
        f" = {wide_rate / cores / local_rate:.0%} of the local engine's whole rate "
        f"({wide_rate / cores / (local_rate / local_workers):.0%} of its rate per worker)")
    print(f"    widest levels (>= half the widest): {new:,} states in {secs:.2f} s = {wide_rate:,.0f}/s, "
          f"{wide_rate / cores:,.0f}/s per core{shares}", flush=True)
    print(f"    levels under 10,000 new states: median {fixed:.3f} s, max {max(tail, default=float('nan')):.3f} s "
          f"({len(tail)} levels); levels on kept visited arrays {spark.stats.get('levels_on_kept_arrays', 0)}"
          f", expanded from kept states {spark.stats.get('levels_expanded_from_files', 0)}"
          f", candidates through files {spark.stats.get('levels_with_candidate_files', 0)}"
          f" (run again: {spark.stats.get('levels_run_again', 0)})", flush=True)
    print(f"    on executors: visited set {16:.0f} B/state (sorted fingerprints); all cached blocks at the end "
          f"{stored / max(spark.distinct_states, 1):.1f} B/state ({stored / 2**20:.0f} MiB: visited set, parent "
          f"records, last frontier); driver Python peak {driver:.0f} MB, driver JVM peak {jvm_peak_mb(sc):.0f} MB",
          flush=True)
    if executors > 0:
        print(f"    of the Python workers' CPU, the executors' own JVMs (local-cluster): {executors:.1f} s", flush=True)
    if args.jvm_threads:
        top = sorted(threads.items(), key=lambda kv: -kv[1])[:8]
        print("    JVM threads (CPU s): " + ", ".join(f"{k} {v:.1f}" for k, v in top), flush=True)
    if args.levels:
        print("    level   where         frontier        new   seconds   states/s", flush=True)
        for lv in levels:
            rate = lv["new"] / lv["seconds"] if lv["seconds"] else 0
            print(f"    {lv['level']:>5}   {lv['where']:<12} {lv['frontier']:>9,} {lv['new']:>10,} "
                  f"{lv['seconds']:>9.3f} {rate:>10,.0f}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="3,4,5", help="powers of ten of the Counters state counts (default 3,4,5)")
    p.add_argument("--replication", action="append", default=[],
                   help="generation:replicas:log_size:max_records:max_leader_epoch (repeatable)")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--partitions", type=int, default=None)
    p.add_argument("--driver-threshold", type=int, default=5000)
    p.add_argument("--driver-memory", default=None, help="spark.driver.memory (default: Spark's own, as a user gets)")
    p.add_argument("--levels", action="store_true", help="print every level's time")
    p.add_argument("--no-local", action="store_true", help="skip the local engine (scaling runs)")
    p.add_argument("--replicas", type=int, default=None,
                   help="copies of each kept block (the engine's default: 2 with two executors or more)")
    p.add_argument("--jvm-threads", action="store_true", help="the JVM's CPU by thread name (JIT, GC, tasks)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting for the session (repeatable; A/B of settings)")
    args = p.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    t = time.monotonic()
    builder = (SparkSession.builder.master(args.master).config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"]))
    if args.driver_memory:
        builder = builder.config("spark.driver.memory", args.driver_memory)
    from isrcheck.explorer.search.spark.tuning import engine_settings

    for key, value in engine_settings(args.master).items():  # what a session the engine creates gets (a CLI run)
        builder = builder.config(key, value)
    for item in args.conf:
        key, _, value = item.partition("=")
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    started = time.monotonic() - t
    sc.parallelize(range(4), 2).count()
    cores = sc.defaultParallelism
    print(f"session {args.master}: {started:.1f} s to a session, {time.monotonic() - t:.1f} s to the first job "
          f"(not in the times below); {cores} cores, partitions {args.partitions or max(2, cores)}, "
          f"driver threshold {args.driver_threshold}", flush=True)
    daemon = sc.getConf().get("spark.python.daemon.module", "pyspark.daemon")
    # Where the executors' warm-up goes: the first job starts the Python daemon of each executor, and
    # the engine's daemon imports the engine's modules there once (spark/daemon.py); in a CLI run
    # that first job is the first level on Spark, so this part of "to the first job" is in its time.
    print(f"    the first job started the Python daemon {daemon}"
          + (" (it imports the engine's modules once, before forking the workers: in a CLI run this is in "
             "the first level on Spark)" if daemon != "pyspark.daemon" else ""), flush=True)
    from tests.fixtures.models import Counters

    for n in (int(x) for x in args.sizes.split(",") if x):
        run(f"Counters({n}, 10)", lambda n=n: Counters(n, 10), args, sc, cores)
    for spec in args.replication:
        from isrcheck.model import make_model

        g, r, ls, mr, me = spec.split(":")
        run(f"{g} {r}/{ls}/{mr}/{me}", lambda g=g, r=r, ls=ls, mr=mr, me=me: make_model(
            generation=g, replicas=int(r), log_size=int(ls), max_records=int(mr), max_leader_epoch=int(me)),
            args, sc, cores)
    spark.stop()


if __name__ == "__main__":
    main()
