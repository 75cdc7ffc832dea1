"""The coordinator of the parallel local engine: level-synchronous breadth-first search over
forked worker processes, with the same counts, depth, verdicts and traces as one process.

Design. Each worker owns one shard of the visited set (the states whose fingerprint is congruent
to its id modulo the number of workers) and holds a share of the frontier. A level is four phases
(``explorer.parallel.worker``): workers expand their frontier and send each successor's key to its
owner; owners keep, for each state not seen before, the least (parent number, successor index)
over every sender, which is exactly the occurrence a one-process search meets first; the
coordinator merges the owners' sorted keys into the level's breadth-first order and numbers the
states by it; generators, told the numbers, keep the new states as their next frontier and check
the state properties on them. States themselves never travel between processes: only their
compact encodings (exact store) or fingerprints (fingerprint store) and two integers do.

Why the results cannot depend on the number of workers or on timing: every decision is a minimum
over keys that a one-process search would order the same way. A violation is reported at the
least (parent number, successor index, check) over all workers; with ``stop_at_first`` the
distinct and generated counts and the depth are those the one-process search had when it stopped
there (the level is finished in parallel, then cut back to the stop point). Traces are rebuilt from
the numbering (``explorer.parallel.order``), by re-running the model along recorded successor
indices.

What it does not do: share memory between workers (each shard is private; the coordinator only
relays small messages), rebalance frontiers (a state stays with the worker that first generated
it, which spreads evenly because shard ownership is by hash), or checkpoint.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import shutil
import tempfile
import time
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import chain
from typing import Any

from explorer.contract import canonical_fn
from explorer.errors import UserError
from explorer.fingerprint import collision_probability, encode
from explorer.parallel.order import Numbering
from explorer.parallel.worker import INDEX_BITS, serve
from explorer.progress import Progress, Silent, Snapshot
from explorer.result import CheckResult, Step, Trace, Violation
from explorer.selection import Selected, describe_failure
from explorer.store_compact import fingerprint64

_KIND_ORDER = {"transition": 0, "always": 1, "sometimes": 1, "deadlock": 2}


@dataclass
class _Context:
    """What every worker inherits by fork."""

    model: Any
    props: Selected
    canon: Any
    store: str
    workers: int
    tmpdir: str
    check_deadlock: bool


class _Pool:
    """The forked workers and their command pipes."""

    def __init__(self, ctx: _Context) -> None:
        mp = multiprocessing.get_context("fork")
        self.conns = []
        self.procs = []
        for wid in range(ctx.workers):
            mine, theirs = mp.Pipe()
            proc = mp.Process(target=serve, args=(ctx, wid, theirs), daemon=True, name=f"isrcheck-worker-{wid}")
            proc.start()
            theirs.close()
            self.conns.append(mine)
            self.procs.append(proc)

    def call(self, command: str, per_worker: list[tuple]) -> list[Any]:
        """Run ``command`` on every worker at once (one argument tuple each); their results in order."""
        for conn, args in zip(self.conns, per_worker, strict=True):
            conn.send((command, args))
        results, error = [], None
        for wid, conn in enumerate(self.conns):
            try:
                status, value = conn.recv()
            except EOFError:
                status, value = "error", RuntimeError(
                    f"parallel worker {wid} died (killed by the system, perhaps out of memory); "
                    "rerun with fewer --workers or the fingerprint store")
            if status == "error" and error is None:
                error = value
            results.append(value)
        if error is not None:
            raise error
        return results

    def same(self, command: str, *args: Any) -> list[Any]:
        return self.call(command, [args] * len(self.conns))

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(("stop", ()))
            except OSError:
                pass
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join()


def _scratch_dir() -> str:
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="isrcheck-", dir=base)


class _Run:
    """The coordinator's side of one run."""

    def __init__(self, model: Any, props: Selected, *, workers: int, store: str, symmetry: bool,
                 stop_at_first: bool, check_deadlock: bool, progress: Progress) -> None:
        canon = canonical_fn(model) if symmetry else None
        if symmetry and canon is None:
            raise UserError(
                "symmetry reduction was asked for, but the model has no canonical(state) method; "
                "add one that returns a symmetry representative, or run without --symmetry"
            )
        self.model, self.props, self.canon, self.store = model, props, canon, store
        self.workers = workers
        self.stop_at_first = stop_at_first
        self.check_deadlock = check_deadlock
        self.progress = progress
        self.numbering = Numbering()
        self.generated = 0
        self.distinct = 0
        self.depth = 0
        self.violated: dict[str, Violation] = {}
        self.pending_sometimes = [p.name for p in props.sometimes]
        self.reached: dict[str, int] = {}
        self.stopped = False
        self.frontier_size = 0
        self.started = time.monotonic()
        self.store_bytes: int | None = None

    # -- the initial level, in this process, exactly as the one-process engine does it ----------

    def initial_level(self) -> list[tuple[int, Any]]:
        exact = self.store == "exact"
        seen: set[Any] = set()
        level: list[tuple[int, Any]] = []  # (number, state)
        indices = array("Q")
        for index, state in enumerate(self.model.init_states()):
            self.generated += 1
            encode(state)  # refuses floats, lists, dicts with a clear ContractError
            kt = self.canon(state) if self.canon is not None else state
            key = kt if exact else fingerprint64(kt)
            if key in seen:
                continue
            seen.add(key)
            number = len(level)
            level.append((number, state))
            indices.append(index)
            self.check_initial(state, number)
            if self.stopped:
                break
        self.numbering.add_level(indices)
        self.distinct = len(level)
        if level:
            self.depth = 1
        return level

    def check_initial(self, state: Any, number: int) -> None:
        for prop in self.props.always:
            if prop.name not in self.violated and not prop.predicate(state):
                self.record(Violation(prop.name, "always", Trace((Step(None, state),)), describe_failure(prop, state)))
        for prop in self.props.sometimes:
            if prop.name in self.pending_sometimes and prop.predicate(state):
                self.reached[prop.name] = number
                self.pending_sometimes.remove(prop.name)

    def record(self, violation: Violation) -> None:
        self.violated[violation.property] = violation
        if self.stop_at_first:
            self.stopped = True

    # -- one level on the workers -------------------------------------------------------------

    def run_level(self, pool: _Pool, level: int, tmpdir: str) -> None:
        violated = set(self.violated)
        expanded = pool.same("expand", level, violated)
        level_generated = sum(r["generated"] for r in expanded)
        pool.same("dedup", level)
        keys = [_read(os.path.join(tmpdir, f"k_{level}_{w}")) for w in range(self.workers)]
        merged = array("Q", sorted(chain.from_iterable(keys)))
        del keys
        for w in range(self.workers):
            _write(os.path.join(tmpdir, f"m_{level}_{w}"), merged)
        offset = self.numbering.add_level(merged)
        adopted = pool.same("adopt", level, offset, violated, list(self.pending_sometimes))
        events = [e for r in expanded for e in r["events"]] + [e for r in adopted for e in r["events"]]
        self.frontier_size = sum(r["size"] for r in adopted)
        self.resolve(pool, events, merged, level_generated)

    def order_of(self, event: tuple) -> tuple[int, int, int, int]:
        kind = event[0]
        if kind in ("always", "sometimes"):
            parent, index = self.numbering.key_of(event[1])
            return parent, index, 1, event[2] if kind == "always" else 1 << 30
        return event[1], event[2], _KIND_ORDER[kind], event[3]

    def resolve(self, pool: _Pool, events: list[tuple], merged: array, level_generated: int) -> None:
        ordered = sorted((self.order_of(e), e) for e in events)
        failures = [(o, e) for o, e in ordered if e[0] != "sometimes"]
        if self.stop_at_first and failures:
            stop = failures[0][0][:3]
            for o, e in ordered:
                if o[:3] > stop:
                    break
                self.take(e)
            self.stopped = True
            parent, index, kind = stop
            key = (parent << INDEX_BITS) | index
            if kind == 0:
                kept = bisect_left(merged, key)
            elif kind == 1:
                kept = bisect_right(merged, key)
            else:
                kept = bisect_left(merged, (parent + 1) << INDEX_BITS)
            self.generated += sum(pool.same("generated_before", parent, index if kind < 2 else -1))
            self.distinct += kept
            self.frontier_size = kept
            if kept:
                self.depth += 1
            return
        for _, e in ordered:
            self.take(e)
        self.generated += level_generated
        self.distinct += len(merged)
        if len(merged):
            self.depth += 1

    def take(self, event: tuple) -> None:
        """Record an event if it is its property's first (events arrive in search order)."""
        kind = event[0]
        if kind == "sometimes":
            name = event[3]
            if name in self.pending_sometimes:
                self.reached[name] = event[1]
                self.pending_sometimes.remove(name)
            return
        if kind == "always":
            _, number, _, name, detail = event
            if name not in self.violated:
                self.violated[name] = Violation(name, "always", self.trace(number), detail)
            return
        _, number, index, _, name, detail = event
        if name in self.violated:
            return
        trace = self.trace(number)
        if kind == "transition":
            action, nxt = list(self.model.successors(trace.last))[index]
            trace = Trace((*trace.steps, Step(action, nxt)))
        self.violated[name] = Violation(name, kind, trace, detail)

    def trace(self, number: int) -> Trace:
        return self.numbering.trace(self.model, number)

    def snapshot(self) -> Snapshot:
        return Snapshot(self.generated, self.distinct, self.frontier_size, self.depth, time.monotonic() - self.started)


def _write(path: str, payload: Any) -> None:
    with open(path + ".tmp", "wb") as f:
        pickle.dump(payload, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(path + ".tmp", path)


def _read(path: str) -> Any:
    with open(path, "rb") as f:
        payload = pickle.load(f)
    os.unlink(path)
    return payload


def run_parallel(
    model: Any,
    props: Selected,
    *,
    workers: int,
    max_depth: int | None = None,
    stop_at_first: bool = True,
    symmetry: bool = False,
    check_deadlock: bool = False,
    store: str = "exact",
    progress: Progress | None = None,
) -> CheckResult:
    """Explore ``model`` breadth-first on ``workers`` forked processes; see ``explorer.check``."""
    run = _Run(model, props, workers=workers, store=store, symmetry=symmetry, stop_at_first=stop_at_first,
               check_deadlock=check_deadlock, progress=progress or Silent())
    interrupted = cut_by_depth = False
    tmpdir = _scratch_dir()
    pool: _Pool | None = None
    try:
        level_states = run.initial_level()
        run.frontier_size = len(level_states)
        if level_states and not run.stopped:
            ctx = _Context(model, props, run.canon, store, workers, tmpdir, check_deadlock)
            pool = _Pool(ctx)
            owned: list[list[tuple[int, Any]]] = [[] for _ in range(workers)]
            for number, state in level_states:
                owned[hash(run.canon(state) if run.canon is not None else state) % workers].append((number, state))
            del level_states
            pool.call("init", [(share,) for share in owned])
            level = 0
            while run.frontier_size and not run.stopped:
                if max_depth is not None and run.depth >= max_depth:
                    cut_by_depth = True
                    break
                level += 1
                run.run_level(pool, level, tmpdir)
                if run.progress.due():
                    run.progress.show(run.snapshot())
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if pool is not None:
            if not interrupted:
                try:
                    run.store_bytes = sum(pool.same("stored_bytes"))
                except Exception:  # figures only; the run's outcome stands without them
                    pass
            pool.close()
        shutil.rmtree(tmpdir, ignore_errors=True)
    run.progress.finish()
    elapsed = time.monotonic() - run.started
    complete = not (interrupted or cut_by_depth or run.stopped)
    examples = {name: run.trace(number) for name, number in run.reached.items()}
    vacuous = [name for name in run.pending_sometimes] if complete else []
    return CheckResult(
        distinct_states=run.distinct,
        generated_states=run.generated,
        depth=run.depth,
        complete=complete,
        violations=list(run.violated.values()),
        elapsed=elapsed,
        engine="local",
        vacuous=vacuous,
        examples=examples,
        properties=props.names,
        interrupted=interrupted,
        store=store,
        collision_probability=collision_probability(run.distinct, run.generated) if store == "fingerprint" else None,
        stats={"frontier_left": 0 if complete else run.frontier_size, "max_depth": max_depth, "symmetry": symmetry,
               "stopped_at_violation": run.stopped, "workers": workers,
               "trace_bytes": run.numbering.nbytes(), "store_bytes": run.store_bytes},
    )
