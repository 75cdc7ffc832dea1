"""What surviving a lost executor costs: the same search on local-cluster with each kept block once
(``replicas=1``, the engine before), twice (``replicas=2``, the default with two executors or
more), and once plus every level written to the checkpoint folder (``--checkpoint``, the other way
to keep a level off the executor that made it), in one session, in interleaved rounds (A B C A B C
...), so that the machine's load falls on every column alike. Then, with ``--kill LEVEL``, one run
of the default that SIGKILLs an executor JVM once that level is done. Prints figures; asserts only
that every run gives the same counts (never anything about time).

    python bench/bench_spark_loss.py                                  # KIP-320 3/2/2/2, 2 rounds
    python bench/bench_spark_loss.py --model kip320:3:2:2:3 --rounds 1 --kill 14
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PYTHONPATH", str(ROOT))


def tree_cpu_s() -> float:
    """CPU seconds of this process and of every process below it (the driver's JVM, the executor
    JVMs and their Python workers, reaped ones included): less disturbed by the machine's load
    than wall time."""
    from tests.fixtures.executors import descendants

    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in [os.getpid(), *descendants(os.getpid())]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / tick  # utime, stime, cutime, cstime
    return total


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="kip320:3:2:2:2",
                   help="generation:replicas:log_size:max_records:max_leader_epoch")
    p.add_argument("--master", default="local-cluster[2,1,1024]")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--kill", type=int, default=None, help="also one default run that kills an executor after LEVEL")
    args = p.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from isrcheck.explorer.progress import Silent
    from isrcheck.model import make_model
    from pyspark.sql import SparkSession

    from isrcheck import check
    from tests.fixtures.executors import executor_pids

    builder = (SparkSession.builder.master(args.master).config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"]))
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    sc.parallelize(range(4), 2).count()
    g, r, ls, mr, me = args.model.split(":")
    model = make_model(generation=g, replicas=int(r), log_size=int(ls), max_records=int(mr), max_leader_epoch=int(me))
    print(f"{args.model} on {args.master}, {args.rounds} round(s); load average before: {os.getloadavg()[0]:.1f}",
          flush=True)

    def one(name: str, progress=None) -> tuple[float, float, tuple]:
        options = {"replicas": 1} if name in ("one copy", "one copy + checkpoint") else {}
        with tempfile.TemporaryDirectory(prefix="isrcheck-loss-bench-") as folder:
            if name == "one copy + checkpoint":
                options["checkpoint"] = folder
            t, cpu = time.monotonic(), tree_cpu_s()
            result = check(model, engine="spark", stop_at_first=False, progress=progress, **options)
            seconds, cpu = time.monotonic() - t, tree_cpu_s() - cpu
        return seconds, cpu, (result.distinct_states, result.generated_states, result.depth)

    columns = ("one copy", "two copies (default)", "one copy + checkpoint")
    times: dict[str, list[float]] = {c: [] for c in columns}
    cpus: dict[str, list[float]] = {c: [] for c in columns}
    counts = set()
    for i in range(args.rounds):
        for name in columns:
            seconds, cpu, found = one(name)
            counts.add(found)
            times[name].append(seconds)
            cpus[name].append(cpu)
            print(f"round {i + 1}: {name:<24} {seconds:7.2f} s wall {cpu:7.2f} s CPU  {found}", flush=True)
    assert len(counts) == 1, counts
    base, base_cpu = statistics.median(times["one copy"]), statistics.median(cpus["one copy"])
    for name in columns:
        median, cpu = statistics.median(times[name]), statistics.median(cpus[name])
        print(f"{name:<24} median {median:7.2f} s wall x{median / base:.2f}, {cpu:7.2f} s CPU x{cpu / base_cpu:.2f} "
              "of one copy", flush=True)

    if args.kill is not None:
        class Killer(Silent):
            killed: list[int] = []

            def message(self, text: str) -> None:
                if text.startswith(f"level {args.kill:>3} |"):
                    threading.Timer(0.3, self.kill).start()

            def kill(self) -> None:
                pids = executor_pids()
                if pids:
                    os.kill(pids[0], signal.SIGKILL)
                    self.killed.append(pids[0])

        killer = Killer()
        seconds, _, found = one("two copies (default)", killer)
        assert found in counts, found
        print(f"two copies, executor {killer.killed} killed after level {args.kill}: {seconds:7.2f} s  {found}",
              flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    spark.stop()


if __name__ == "__main__":
    main()
