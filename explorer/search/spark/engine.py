"""The distributed engine: level-synchronous breadth-first search on Spark.

Breadth-first by whole levels is what keeps counterexamples shortest and a run reproducible when
the work of a level is spread over executors: level k+1 is known completely before any of it is
expanded, and every choice inside a level is made by fingerprint order (``level``), not by which
executor finished first. Counts follow the local engine and TLC exactly (initial states are depth 1;
generated counts every successor computed), so a complete run reports the same numbers as
``engine="local"``; a violation's trace has the same (shortest) length, though it may be a
different trace of that length, since the local engine keeps the first state found and this one
the smallest fingerprint.

The driver holds the per-level bookkeeping only: counts, the properties still pending, the
fingerprints of what violated them. States live in the visited set and frontier on executors
(``store``), except while the run is small enough for the driver (``driver_threshold``).
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from isrcheck.explorer.contract import canonical_fn
from isrcheck.explorer.errors import ContractError, UserError
from isrcheck.explorer.progress import Progress, Silent
from isrcheck.explorer.result import CheckResult, Step, Trace, Violation
from isrcheck.explorer.search.audit import audited_init_states
from isrcheck.explorer.search.fingerprint import collision_probability
from isrcheck.explorer.search.rebuild import rebuild_trace
from isrcheck.explorer.search.spark import resident
from isrcheck.explorer.search.spark.checkpoint import Checkpoint, not_data, run_identity
from isrcheck.explorer.search.spark.faults import is_fault, stop_for
from isrcheck.explorer.search.spark.interrupt import Interrupts
from isrcheck.explorer.search.spark.level import (
    DRIVER_AUDIT,
    PARTITION_AUDIT,
    Context,
    merge_reports,
    model_modules,
    partition_of,
    rehack,
    unhack_namedtuples,
)
from isrcheck.explorer.search.spark.lost import LostExecutor, is_loss, lost_message
from isrcheck.explorer.search.spark.manifest import MAX_PARTITIONS
from isrcheck.explorer.search.spark.session import get_session, make_payload
from isrcheck.explorer.search.spark.steps import expand, initial_candidates
from isrcheck.explorer.search.spark.store import Store
from isrcheck.explorer.search.spark.tasks import NOT_DATA, UNREADABLE
from isrcheck.explorer.selection import Selected, describe_failure

OPTIONS = ("master", "checkpoint", "resume", "partitions", "driver_threshold", "driver_memory",
           "interrupt_after_level", "replicas")
DEFAULT_DRIVER_THRESHOLD = 5000


def run_spark(
    model: Any,
    props: Selected,
    *,
    max_depth: int | None = None,
    stop_at_first: bool = True,
    symmetry: bool = False,
    check_deadlock: bool = False,
    progress: Progress | None = None,
    **engine_options: Any,
) -> CheckResult:
    """Explore ``model`` level by level on Spark; see ``isrcheck.explorer.check`` for the common options.

    master: Spark master URL when no SparkSession is active (default ``local[*]``).
    checkpoint: a folder (visible at the same path to the driver and every executor) that keeps
        each completed level; ``resume=True`` continues the run checkpointed there.
    partitions: partitions of the visited set (default: the default parallelism, at least 2; every
        partition costs a task per stage, about 0.3 s of CPU a level for 4 on local[2]).
    driver_threshold: levels are computed in the driver while the run has stored at most this many
        states, and a frontier of at most this many states is expanded in the driver (default 5000;
        0 sends every level to the executors).
    driver_memory: ``spark.driver.memory`` for a session this call creates (local mode runs the
        executors in the driver's JVM; Spark's default suffices, since level blocks are kept on disk).
    interrupt_after_level: a test hook that interrupts the run (as Ctrl-C would) after that level.
    replicas: copies of every block a level keeps (default: 2 when the application has two or more
        executors, so that the run survives the loss of one; else 1); for benchmarks.
    """
    unknown = sorted(set(engine_options) - set(OPTIONS))
    if unknown:
        raise UserError(f"unknown spark engine option(s) {', '.join(unknown)}; the spark engine takes: "
                        f"{', '.join(OPTIONS)}")
    if symmetry and canonical_fn(model) is None:
        raise UserError("symmetry reduction was asked for, but the model has no canonical(state) method; "
                        "add one that returns a symmetry representative, or run without --symmetry")
    opts = dict(engine_options)
    if opts.get("resume") and not opts.get("checkpoint"):
        raise UserError("resume=True needs checkpoint=DIR (the folder of the run to continue)")
    threshold = opts.get("driver_threshold", DEFAULT_DRIVER_THRESHOLD)
    if not isinstance(threshold, int) or threshold < 0:
        raise UserError(f"driver_threshold must be a non-negative integer, not {threshold!r}")
    replicas = opts.get("replicas")
    if replicas is not None and (not isinstance(replicas, int) or not 1 <= replicas <= 3):
        raise UserError(f"replicas must be 1, 2 or 3, not {replicas!r}")
    partitions = opts.get("partitions")
    if partitions is not None and (not isinstance(partitions, int) or not 1 <= partitions <= MAX_PARTITIONS):
        raise UserError(f"partitions must be an integer from 1 to {MAX_PARTITIONS:,}, not {partitions!r}")
    run = _Run(model, props, max_depth=max_depth, stop_at_first=stop_at_first, symmetry=symmetry,
               check_deadlock=check_deadlock, progress=progress or Silent(), opts=opts, threshold=threshold)
    return run.execute()


STOP_NOTE = ("The spark engine stops at the end of the level (depth) of its first violation: its counts "
             "include that whole level, and each property violated there is reported (docs/spark.md).")


class _Run:
    def __init__(self, model: Any, props: Selected, *, max_depth: int | None, stop_at_first: bool, symmetry: bool,
                 check_deadlock: bool, progress: Progress, opts: dict[str, Any], threshold: int):
        self.model, self.props = model, props
        self.max_depth, self.stop_at_first = max_depth, stop_at_first
        self.symmetry, self.check_deadlock = symmetry, check_deadlock
        self.progress, self.opts, self.threshold = progress, opts, threshold
        self.ctx = Context(model, props, symmetry, check_deadlock)
        self.started = time.monotonic()
        # bookkeeping after the last complete level (what the manifest keeps)
        self.level = 0  # the last complete level
        self.depth = 0
        self.generated = 0
        self.distinct = 0
        self.audited = 0  # states the driver has audited against the model contract
        self.findings: dict[str, dict[str, Any]] = {}  # property -> {kind, level, fp, action}
        self.reached: dict[str, list[int]] = {}  # sometimes property -> [level, fp]
        self.pending = [p.name for p in props.sometimes]
        self.stopped = False
        self.levels: list[dict[str, Any]] = []
        self.frontier: Any = []  # list of (fp, state) in the driver, or an RDD of them
        self.frontier_size = 0
        self.resumed_from = 0
        self.restored = False  # the store holds every level the checkpoint names
        self.checkpoint = Checkpoint(opts["checkpoint"]) if opts.get("checkpoint") else None
        self.identity = run_identity(model, props, symmetry=symmetry, check_deadlock=check_deadlock,
                                     stop_at_first=stop_at_first, max_depth=max_depth)

    # -- the run ---------------------------------------------------------------------------------------

    def execute(self) -> CheckResult:
        from isrcheck.explorer.search.spark.session import helper_modules

        # States made of the user's namedtuple classes must reach executors whole (methods included).
        undone = unhack_namedtuples(model_modules(self.model, helper_modules()))
        try:
            with Interrupts() as interrupts:
                return self._execute(interrupts)
        finally:
            if self.checkpoint is not None:
                self.checkpoint.unlock()
            rehack(undone)

    def _execute(self, interrupts: Interrupts) -> CheckResult:
        manifest = None
        if self.checkpoint is not None:
            self.checkpoint.lock(create=not self.opts.get("resume"))
            if self.opts.get("resume"):
                manifest = self.checkpoint.read_manifest()
                self.checkpoint.check_identity(manifest, self.identity)
                self.checkpoint.check_names(manifest, self.props)
                self.checkpoint.verify_files(manifest)
            else:
                self.checkpoint.prepare_new()
        spark, created = get_session(self.opts.get("master"), self.opts.get("driver_memory"))
        interrupts.reinstall()  # starting a SparkContext installs PySpark's own SIGINT handler
        self.sc = sc = spark.sparkContext
        interrupts.attach(sc, owned=created)
        # Every level's output is local-checkpointed; should a job reach several marked RDDs, all are
        # truncated (by default only the outermost), so lineage and each job's DAG stay one level long.
        sc.setLocalProperty("spark.checkpoint.checkpointAllMarkedAncestors", "true")
        ui = sc.uiWebUrl
        if ui:
            self.progress.message(f"Spark UI: {ui}")
        partitions = self.opts.get("partitions") or max(2, sc.defaultParallelism)
        if manifest is not None and manifest["partitions"] != partitions:
            if self.opts.get("partitions"):
                self.progress.message(f"resuming with the checkpoint's {manifest['partitions']} partitions, "
                                      f"not {partitions}")
            partitions = manifest["partitions"]
        self.payload = make_payload(sc, self.model, self.props, self.symmetry, self.check_deadlock)
        self.store = Store(self.ctx, partitions)
        self.store.replicas = self.opts.get("replicas")
        self.store.attach(sc, self.payload)
        interrupted = cut = False
        try:
            if manifest is not None:
                self.restore(manifest)
            self.restored = True
            while not self.stopped:
                if interrupts.requested:
                    raise KeyboardInterrupt
                if self.level > 0 and self.frontier_size == 0:
                    break
                if self.max_depth is not None and self.depth >= self.max_depth:
                    cut = True
                    break
                self.step()
                if self.opts.get("interrupt_after_level") == self.level:
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            interrupted = True
        except Exception as exc:
            # A Ctrl-C cancels the running jobs: the pending Spark call fails with "job cancelled".
            if not interrupts.requested:
                # every way out below but the fault's leaves the store as it is (its blocks may be
                # gone with an executor); the run's kept files go all the same (``resident``)
                resident.drop(self.store.kept_folder)
                contract = _contract_error(exc)
                if contract is not None:
                    raise contract from None
                # The driver JVM out of memory (exit 5) or a checkpoint disk that failed (RunFailed, exit 7):
                # the statistics so far, from the driver's counters (faults.py).
                if is_fault(exc):
                    with contextlib.suppress(Exception):  # after a JVM fault Spark may refuse even this
                        self.store.release()
                    return stop_for(self, exc)
                # An executor lost with the only copies of blocks (exit 6; lost.py)
                if is_loss(exc):
                    raise self.lost(exc) from None
                raise
            interrupted = True
        try:
            if interrupted:
                interrupts.settle()
                sc.cancelAllJobs()
                if self.checkpoint is not None:
                    # The level in progress was cancelled: its half-written folder is no checkpoint.
                    self.checkpoint.discard_unfinished()
                self.progress.message(self.interrupted_message())
                if not self.restored:
                    # The store is half rebuilt: no trace can be walked back; nothing new was explored.
                    raise KeyboardInterrupt
            try:
                return self.result(interrupted=interrupted, cut=cut)
            except Exception as exc:
                if interrupts.requested:  # a Ctrl-C while the traces were rebuilt cancelled their jobs
                    raise KeyboardInterrupt from None
                if is_loss(exc):  # the blocks of older levels' parent records, walked for a trace
                    raise self.lost(exc) from None
                raise
        finally:
            try:
                self.store.release()
            except Exception as exc:
                if not is_loss(exc):  # after a lost application there is nothing left to release
                    raise

    def lost(self, exc: BaseException) -> LostExecutor:
        """The exit-6 report of a loss Spark could not recover from: the complete levels' figures
        and the way on. The level in progress is no checkpoint: its half-written folder goes."""
        if self.checkpoint is not None:
            with contextlib.suppress(OSError):
                self.checkpoint.discard_unfinished()
        return LostExecutor(lost_message(exc, level=self.level, distinct=self.distinct, generated=self.generated,
                                         depth=self.depth,
                                         checkpoint=str(self.checkpoint.dir) if self.checkpoint else None))

    def interrupted_message(self) -> str:
        """The one paragraph a Ctrl-C prints: where the run stopped and what is kept."""
        if not self.restored:
            return (f"Interrupted while resuming from the checkpoint in {self.checkpoint.dir}: nothing new was "
                    "explored and the checkpoint is unchanged; run the same command again to resume.")
        text = (f"Interrupted: the statistics below cover the {self.level} complete level"
                f"{'s' if self.level != 1 else ''} ({self.distinct:,} distinct states); level {self.level + 1} was "
                "not finished.")
        if self.checkpoint is not None:
            text += (f" The checkpoint in {self.checkpoint.dir} keeps them: run the same command with --resume to "
                     f"continue from level {self.level + 1}.")
        else:
            text += " Without --checkpoint DIR the next run starts from the beginning."
        return text

    def step(self) -> None:
        """Compute level ``self.level + 1`` from the frontier of ``self.level``."""
        t0 = time.monotonic()
        level = self.level + 1
        violated = set(self.findings)
        transition = frozenset(p.name for p in self.props.transition if p.name not in violated)
        always = frozenset(p.name for p in self.props.always if p.name not in violated)
        sometimes = frozenset(self.pending)
        store = self.store
        frontier_in = self.frontier_size
        where = "driver"
        if level == 1:
            audited_init_states(self.model)
            cands, rep = initial_candidates(self.ctx)
        elif isinstance(self.frontier, list):
            # the driver's levels: the first states of the run, then a few of each level, are
            # audited against the model contract, as the local engine does
            audit = max(PARTITION_AUDIT, DRIVER_AUDIT - self.audited)
            self.audited += min(audit, len(self.frontier))
            cands, rep = expand(self.ctx, [fp for fp, _ in self.frontier], [p for _, p in self.frontier],
                                transition, audit=audit)
        else:
            cands, rep = None, None
        if store.on_driver:
            best, drep = store.add_on_driver(level, cands, always, sometimes)
            rep = merge_reports([rep, drep])
            frontier = [(fp, v[2]) for fp, v in best.items()]
            if store.size > self.threshold:
                store.move_to_executors(self.sc, self.payload)
            if self.checkpoint is not None:
                self.checkpoint.write_driver_level(level, store.parents[level], frontier)
            self.frontier = frontier
        else:
            save = self.checkpoint.begin_spark_level(level) if self.checkpoint is not None else None
            if cands is not None:
                where = "driver+spark"
                rep = store.level_from_driver(level, cands, rep, always, sometimes, save, send=self.threshold)
            else:
                where = "spark"
                rep = store.level_from_rdd(level, self.frontier, transition, always, sometimes, save,
                                           send=self.threshold // store.partitions, frontier_size=frontier_in)
            if self.checkpoint is not None:
                self.checkpoint.commit_spark_level(level, store.partitions)
            self.frontier = store.frontier_list(rep) if rep["new"] <= self.threshold else store.frontier_rdd()
            rep["blocks"] = []
        if isinstance(self.frontier, list) and len(self.frontier) > self.threshold and not store.on_driver:
            self.frontier = store.parallelize(self.frontier)
        self.frontier_size = rep["new"]
        self.record(level, rep, frontier_in, where, time.monotonic() - t0)
        if self.checkpoint is not None:
            self.save_manifest()
            if level > 2:  # the previous level's frontier stays, to step back to it if this level is damaged
                self.checkpoint.drop_frontier(level - 2)

    def record(self, level: int, rep: dict[str, Any], frontier_in: int, where: str, seconds: float) -> None:
        self.level = level
        self.generated += rep["generated"]
        self.distinct += rep["new"]
        if rep["new"]:
            self.depth = level
        found = False
        for name, fp in sorted(rep["always"].items()):
            if name not in self.findings:
                self.findings[name] = {"kind": "always", "level": level, "fp": fp, "action": None}
                found = True
        for name, (fp, action) in sorted(rep["transition"].items()):
            if name not in self.findings:
                self.findings[name] = {"kind": "transition", "level": level - 1, "fp": fp, "action": action}
                found = True
        if rep["deadlock"] is not None and "deadlock" not in self.findings:
            self.findings["deadlock"] = {"kind": "deadlock", "level": level - 1, "fp": rep["deadlock"], "action": None}
            found = True
        for name, fp in sorted(rep["sometimes"].items()):
            if name in self.pending:
                self.reached[name] = [level, fp]
                self.pending.remove(name)
        if found and self.stop_at_first:
            self.stopped = True
        growth = rep["new"] / frontier_in if frontier_in else 0.0
        stats = {"level": level, "where": where, "frontier": frontier_in, "new": rep["new"],
                 "generated": rep["generated"], "seconds": round(seconds, 3)}
        self.levels.append(stats)
        rate = rep["new"] / seconds if seconds > 0 else 0.0
        self.progress.message(
            f"level {level:>3} | frontier {frontier_in:>10,} | new {rep['new']:>10,} | growth x{growth:5.2f} | "
            f"distinct {self.distinct:>12,} | generated {self.generated:>13,} | {seconds:6.2f} s | "
            f"{rate:>9,.0f} states/s | {where}")

    # -- checkpoints ----------------------------------------------------------------------------------

    def save_manifest(self) -> None:
        self.checkpoint.write_manifest({
            "identity": self.identity,
            "partitions": self.store.partitions,
            "last_level": self.level,
            "levels": self.levels,
            "run": {
                "generated": self.generated, "distinct": self.distinct, "depth": self.depth,
                "findings": self.findings, "reached": self.reached, "pending": self.pending,
                "stopped": self.stopped, "frontier_size": self.frontier_size,
                "on_driver": self.store.on_driver,
            },
        })

    def restore(self, manifest: dict[str, Any]) -> None:
        from isrcheck.explorer.search.spark.resume import restore_store

        run = manifest["run"]
        try:
            self.level = manifest["last_level"]
            self.levels = list(manifest["levels"])
            self.generated, self.distinct, self.depth = run["generated"], run["distinct"], run["depth"]
            self.findings = dict(run["findings"])
            self.reached = {k: list(v) for k, v in run["reached"].items()}
            self.pending = list(run["pending"])
            self.stopped = bool(run["stopped"])
            self.frontier_size = int(run["frontier_size"])
            on_driver = bool(run["on_driver"])
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"the checkpoint manifest in {self.checkpoint.dir} is corrupt ({exc!r}); start a new "
                            "run in another --checkpoint folder") from None
        self.resumed_from = self.level
        self.frontier = restore_store(self.store, self.checkpoint, self.levels, on_driver=on_driver,
                                      threshold=self.threshold)
        if isinstance(self.frontier, list) and len(self.frontier) > self.threshold and not on_driver:
            self.frontier = self.store.parallelize(self.frontier)
        self.progress.message(f"resumed from level {self.level} ({self.distinct:,} states) in {self.checkpoint.dir}")

    # -- the result -----------------------------------------------------------------------------------

    def result(self, *, interrupted: bool, cut: bool) -> CheckResult:
        targets = {name: (f["level"], f["fp"]) for name, f in self.findings.items()}
        targets.update({("reached", name): (lv, fp) for name, (lv, fp) in self.reached.items()})
        paths = self.store.paths(targets) if targets else {}
        key_of = self.ctx.key_of
        violations = []
        order = sorted(self.findings.items(), key=lambda item: (item[1]["level"], item[0]))
        for name, f in order:
            trace = rebuild_trace(self.model, paths[name], key_of)
            violations.append(self.violation(name, f, trace))
        examples = {name: rebuild_trace(self.model, paths[("reached", name)], key_of) for name in self.reached}
        complete = not (interrupted or cut or self.stopped)
        elapsed = time.monotonic() - self.started
        on_spark = sum(1 for lv in self.levels if lv["where"] != "driver")
        return CheckResult(
            distinct_states=self.distinct,
            generated_states=self.generated,
            depth=self.depth,
            complete=complete,
            violations=violations,
            elapsed=elapsed,
            engine="spark",
            # distinct states first found at each depth, as the local engine counts them (the HTML
            # report's chart); level 1's "new" are the initial states
            levels=[lv["new"] for lv in self.levels if lv["new"]],
            vacuous=list(self.pending) if complete else [],
            examples=examples,
            properties=self.props.names,
            interrupted=interrupted,
            store="fingerprint",
            collision_probability=collision_probability(self.distinct, self.generated, bits=128),
            stats={
                "frontier_left": 0 if complete else self.frontier_size,
                # The local engines' wording ("stopped at the first violation"), with why the counts
                # differ: a level is expanded as a whole on the executors, so the run stops at the end
                # of the level that found a violation, with every property violated in that level.
                "stopped_at_violation": self.stopped and not interrupted,
                "stop_note": STOP_NOTE if self.stopped and not interrupted else None,
                "max_depth": self.max_depth,
                "symmetry": self.symmetry,
                "master": self.sc.master,
                "partitions": self.store.partitions,
                "driver_threshold": self.threshold,
                "levels": self.level,
                "levels_on_spark": on_spark,
                "resumed_from_level": self.resumed_from,
                "checkpoint": str(self.checkpoint.dir) if self.checkpoint else None,
                "spark_ui": self.sc.uiWebUrl,
                "level_stats": self.levels,
                "stored_bytes": self.store.stored_bytes(),
                # levels that mapped the visited set from kept files (spark/resident.py), levels
                # whose expansion read the kept new states, levels whose candidates went to the merge
                # through files (spark/candfiles.py), and the levels of any kind that found no file
                # somewhere and ran again through Spark
                "levels_on_kept_arrays": self.store.mapped,
                "levels_expanded_from_files": self.store.expanded_from_files,
                "levels_with_candidate_files": self.store.cands_in_files,
                "levels_run_again": self.store.again,
                # times a missing kept array's visited set was rebuilt from Spark's copy (``store``)
                "visited_rebuilt": self.store.rebuilt,
            },
        )

    def violation(self, name: str, f: dict[str, Any], trace: Trace) -> Violation:
        last = trace.last
        if f["kind"] == "always":
            prop = next(p for p in self.props.always if p.name == name)
            return Violation(name, "always", trace, describe_failure(prop, last))
        if f["kind"] == "deadlock":
            return Violation("deadlock", "deadlock", trace, "no action is enabled")
        prop = next(p for p in self.props.transition if p.name == name)
        steps = list(self.model.successors(last))
        # The first violating step from the rebuilt state. Without symmetry it is the recorded step;
        # with symmetry the rebuilt state may be another member of the recorded state's class, whose
        # successors come in another order.
        step = next(((a, t) for a, t in steps if not prop.predicate(last, a, t)), None)
        if step is None:
            if not 0 <= f["action"] < len(steps):
                raise ContractError(f"could not rebuild the step that violated {name!r}: successors() of the "
                                    "rebuilt state differ from the run's; successors must be deterministic")
            step = steps[f["action"]]
        trace = Trace((*trace.steps, Step(*step)))
        return Violation(name, "transition", trace, describe_failure(prop, last, *step))


def _contract_error(exc: Exception) -> Exception | None:
    """A ContractError raised on an executor, or a module executors cannot import, reaches the
    driver inside a Py4J/Python exception; give the user a message, not a JVM stack trace."""
    text = str(exc)
    marker = "isrcheck.explorer.errors.ContractError: "
    if marker in text:
        message = text.split(marker, 1)[1].strip().splitlines()[0]
        return ContractError(message)
    for marker, make in ((NOT_DATA, not_data), (UNREADABLE, lambda m: UserError(
            f"a checkpoint file is not data this version wrote ({m}); the checkpoint is damaged or forged: start "
            "the run again without --resume in another --checkpoint folder"))):
        if marker in text:
            return make(text.split(marker, 1)[1].strip().splitlines()[0])
    marker = "ModuleNotFoundError: No module named "
    if marker in text:
        name = text.split(marker, 1)[1].strip().splitlines()[0]
        # without the closing parenthesis of Python's line for a daemon run with ``-m`` that cannot be
        # imported (``spark.daemon``): "(ModuleNotFoundError: No module named 'isrcheck')"
        name = name[:-1] if name.endswith("')") else name
        return UserError(
            f"the executors cannot import {name}, which the model needs; install the package that holds it "
            "on every executor (or pass it with spark-submit --py-files), or give the model as a file "
            "(path/to/model.py:make_model), which the engine ships itself (see docs/spark.md)")
    return None


__all__ = ["run_spark", "partition_of"]
