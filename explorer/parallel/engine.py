"""The coordinator of the parallel local engine: workers expand, one process decides.

Design. Breadth-first search level by level, as in the one-process engine. Each level's frontier
is cut into chunks; forked workers (``explorer.parallel.worker``) compute the successors of each
chunk, their fingerprints (fingerprint store) and every property, which together are most of the
cost of a search. The coordinator takes the chunks' results in frontier order, whatever order
they arrive in, and replays the one-process search over them: the same visited-set test in the
same order, the same first discovery of each state, the same first violation. So counts, depth,
verdicts and traces are the one-process engine's for any number of workers, including where a
run stops at its first violation (the count of generated states is recomputed from the per-state
successor counts up to the stopping step).

States are numbered in discovery order; the trace bookkeeping is one 8-byte key per state,
(parent number << INDEX_BITS) | successor index (``explorer.parallel.order``). The visited set:
- exact store: a set of the states (or their canonical forms under symmetry);
- fingerprint store: a ``FingerprintTable`` of 64-bit fingerprints computed by the workers, with
  the last levels' fingerprints also in plain sets, because a set lookup runs in C while a probe
  of the compact table runs in Python, and most repeated states were first seen one or two
  levels earlier.

What it does not do: shard the visited set (the coordinator is the only writer, which is what
makes the order trivially the one-process order; it is also the part that does not scale past a
few workers), or checkpoint.
"""

from __future__ import annotations

import multiprocessing
import queue
import time
from array import array
from dataclasses import dataclass
from typing import Any

from explorer.contract import canonical_fn
from explorer.errors import UserError
from explorer.fingerprint import collision_probability, encode
from explorer.parallel.order import Numbering
from explorer.parallel.worker import INDEX_BITS, MAX_SUCCESSORS, Expander, serve
from explorer.progress import Progress, Silent, Snapshot
from explorer.result import CheckResult, Step, Trace, Violation
from explorer.selection import Selected, describe_failure
from explorer.store_compact import FingerprintTable, fingerprint64

_MASK = (1 << INDEX_BITS) - 1
# Levels smaller than this are expanded in the coordinator: shipping them costs more than it saves.
INLINE_BELOW = 256


@dataclass
class _Context:
    """What every worker inherits by fork."""

    model: Any
    props: Selected
    canon: Any
    store: str


class _Pool:
    """The forked workers, a task queue and a result queue each (queues never block a sender)."""

    def __init__(self, ctx: _Context, workers: int) -> None:
        mp = multiprocessing.get_context("fork")
        self.tasks = [mp.Queue() for _ in range(workers)]
        self.results = [mp.Queue() for _ in range(workers)]
        self.procs = [mp.Process(target=serve, args=(ctx, self.tasks[w], self.results[w]), daemon=True,
                                 name=f"isrcheck-worker-{w}") for w in range(workers)]
        for proc in self.procs:
            proc.start()

    def __len__(self) -> int:
        return len(self.procs)

    def submit(self, chunk_id: int, chunk: list[Any], skip: frozenset[str]) -> None:
        self.tasks[chunk_id % len(self.procs)].put((chunk_id, chunk, skip))

    def result(self, chunk_id: int) -> Any:
        w = chunk_id % len(self.procs)
        while True:
            try:
                got_id, status, value = self.results[w].get(timeout=5)
                break
            except queue.Empty:
                if not self.procs[w].is_alive():
                    raise RuntimeError(
                        f"parallel worker {w} died (killed by the system, perhaps out of memory); "
                        "rerun with fewer --workers or the fingerprint store") from None
        if status == "error":
            raise value
        assert got_id == chunk_id, (got_id, chunk_id)
        return value

    def close(self, *, force: bool = False) -> None:
        """Stop the workers. ``force``: the run ended mid-level (first violation, interrupt, error),
        so tasks may still be queued: terminate, and do not let this process wait at exit for
        queue threads that would feed workers which are gone."""
        for proc, tasks in zip(self.procs, self.tasks, strict=True):
            if force:
                proc.terminate()
            else:
                try:
                    tasks.put(None)
                except (OSError, ValueError):
                    proc.terminate()
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join()
        for q in (*self.tasks, *self.results):
            q.cancel_join_thread()
            q.close()


class _Run:
    """The coordinator's side of one run: the one-process search, fed by workers."""

    def __init__(self, model: Any, props: Selected, *, workers: int, store: str, symmetry: bool,
                 stop_at_first: bool, check_deadlock: bool, progress: Progress, inline_below: int) -> None:
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
        self.inline_below = inline_below
        self.ctx = _Context(model, props, canon, store)
        self.inline = Expander(self.ctx)
        self.numbering = Numbering()
        self.exact = store == "exact"
        self.seen: set[Any] = set()  # exact store
        self.table = FingerprintTable()  # fingerprint store
        self.recent: list[set[int]] = [set(), set()]  # fingerprint store: the last two levels
        self.generated = 0
        self.depth = 0
        self.violated: dict[str, Violation] = {}
        self.pending_sometimes = [p.name for p in props.sometimes]
        self.reached: dict[str, int] = {}
        self.stopped = False
        self.started = time.monotonic()

    @property
    def distinct(self) -> int:
        return len(self.numbering)

    # -- the initial level, exactly as the one-process engine does it --------------------------

    def initial_level(self) -> list[Any]:
        level: list[Any] = []
        indices = array("Q")
        self.numbering.add_level(indices)
        for index, state in enumerate(self.model.init_states()):
            self.generated += 1
            encode(state)  # refuses floats, lists, dicts with a clear ContractError
            kt = self.canon(state) if self.canon is not None else state
            if not self.insert(kt, fingerprint64(kt) if not self.exact else 0):
                continue
            number = len(level)
            level.append(state)
            indices.append(index)
            self.check_state(state, number)
            if self.stopped:
                break
        if level:
            self.depth = 1
        return level

    def insert(self, kt: Any, fp: int) -> bool:
        """Store a state's key; True if it is new."""
        if self.exact:
            try:
                if kt in self.seen:
                    return False
            except TypeError as exc:
                from explorer.parallel.worker import _unhashable

                raise _unhashable(kt, exc) from None
            self.seen.add(kt)
            return True
        current, last = self.recent
        if fp in current or fp in last or not self.table.add(fp):
            return False
        current.add(fp)
        return True

    def check_state(self, state: Any, number: int, failing: list[int] | None = None,
                    reaching: list[int] | None = None) -> None:
        """The one-process engine's state check; ``failing``/``reaching`` are a worker's results
        (property positions) when it has already evaluated the predicates."""
        for n, prop in enumerate(self.props.always):
            if prop.name in self.violated:
                continue
            fails = (n in failing) if failing is not None else not prop.predicate(state)
            if fails:
                self.record(Violation(prop.name, "always", self.trace(number), describe_failure(prop, state)))
        for n, prop in enumerate(self.props.sometimes):
            if prop.name not in self.pending_sometimes:
                continue
            reaches = (n in reaching) if reaching is not None else prop.predicate(state)
            if reaches:
                self.reached[prop.name] = number
                self.pending_sometimes.remove(prop.name)

    def record(self, violation: Violation) -> None:
        self.violated[violation.property] = violation
        if self.stop_at_first:
            self.stopped = True

    def trace(self, number: int) -> Trace:
        return self.numbering.trace(self.model, number)

    def skip(self) -> frozenset[str]:
        """Properties the workers need not evaluate any more."""
        done = set(self.violated)
        done.update(p.name for p in self.props.sometimes if p.name not in self.pending_sometimes)
        return frozenset(done)

    # -- one level ------------------------------------------------------------------------------

    def expand_level(self, frontier: list[Any], pool: _Pool | None) -> list[Any]:
        offset = self.numbering.offsets[-1]
        keys = array("Q")
        self.numbering.add_level(keys)
        nxt: list[Any] = []
        if pool is None or len(frontier) < self.inline_below:
            chunks = [frontier]
        else:
            size = max(64, min(20000, -(-len(frontier) // (8 * len(pool)))))
            chunks = [frontier[i:i + size] for i in range(0, len(frontier), size)]
        if len(chunks) == 1 or pool is None:
            start = 0
            for chunk in chunks:
                self.replay(chunk, self.inline.expand(chunk, self.skip()), offset + start, keys, nxt)
                start += len(chunk)
                if self.stopped:
                    break
            return nxt
        skip = self.skip()
        for i, chunk in enumerate(chunks):
            pool.submit(i, chunk, skip)
        start = 0
        for i, chunk in enumerate(chunks):
            self.replay(chunk, pool.result(i), offset + start, keys, nxt)
            if self.stopped:
                break  # the pool is closed unfinished: the run ends here
            start += len(chunk)
            if self.progress.due():
                self.progress.show(self.snapshot(len(frontier) - start + len(nxt)))
        return nxt

    def replay(self, chunk: list[Any], result: tuple, first: int, keys: array, nxt: list[Any]) -> None:
        """The one-process search over one expanded chunk whose first state is number ``first``."""
        counts, succs, canons, fps, where, step_failures, state_failures, reached = result
        events = bool(step_failures or state_failures or reached)
        if self.check_deadlock and "deadlock" not in self.violated and 0 in counts:
            events = True
        if not events:
            self.replay_quiet(succs, canons, fps, where, first, keys, nxt)
            self.generated += sum(c for c in counts if c > 0)
            return
        self.replay_events(chunk, result, first, keys, nxt)

    def replay_quiet(self, succs: list[Any], canons: list[Any] | None, fps: array | None, where: array,
                     first: int, keys: array, nxt: list[Any]) -> None:
        """The hot loop: no property or deadlock event in this chunk."""
        base = first << INDEX_BITS
        append_key, append = keys.append, nxt.append
        if self.exact:
            seen = self.seen
            add = seen.add
            for j, kt in enumerate(canons if canons is not None else succs):
                if kt in seen:
                    continue
                add(kt)
                append_key(base + where[j])
                append(succs[j])
            return
        current, last = self.recent
        add_fp, table_add = current.add, self.table.add
        for j, fp in enumerate(fps):
            if fp in current or fp in last or not table_add(fp):
                continue
            add_fp(fp)
            append_key(base + where[j])
            append(succs[j])

    def replay_events(self, chunk: list[Any], result: tuple, first: int, keys: array, nxt: list[Any]) -> None:
        """The same replay, with property results and deadlocks merged in search order."""
        counts, succs, canons, fps, where, step_failures, state_failures, reached = result
        events = [(pos, idx, 0, n) for pos, idx, n in step_failures]
        if self.check_deadlock:
            events.extend((pos, MAX_SUCCESSORS, 2, 0) for pos, c in enumerate(counts) if c == 0)
        events.sort()
        failing: dict[int, list[int]] = {}
        for j, n in state_failures:
            failing.setdefault(j, []).append(n)
        reaching: dict[int, list[int]] = {}
        for j, n in reached:
            reaching.setdefault(j, []).append(n)
        base = first << INDEX_BITS
        e = 0
        for j, succ in enumerate(succs):
            w = where[j]
            at = (w >> INDEX_BITS, w & _MASK)
            while e < len(events) and events[e][:2] <= at:
                e = self.handle_events(chunk, counts, events, e, first)
                if self.stopped:
                    return
            kt = canons[j] if canons is not None else succ
            if not self.insert(kt, fps[j] if fps is not None else 0):
                continue
            number = len(self.numbering)
            keys.append(base + w)
            nxt.append(succ)
            if j in failing or j in reaching:
                self.check_state(succ, number, failing.get(j, []), reaching.get(j, []))
                if self.stopped:
                    self.generated += _generated_before(counts, *at)
                    return
        while e < len(events):
            e = self.handle_events(chunk, counts, events, e, first)
            if self.stopped:
                return
        self.generated += sum(c for c in counts if c > 0)

    def handle_events(self, chunk: list[Any], counts: array, events: list[tuple], e: int, first: int) -> int:
        """Record the events at one search position (all properties failing at the same step);
        return the index of the next event."""
        pos, idx, kind, _ = events[e]
        while e < len(events) and events[e][:3] == (pos, idx, kind):
            n = events[e][3]
            e += 1
            if kind == 2:
                if "deadlock" not in self.violated:
                    self.record(Violation("deadlock", "deadlock", self.trace(first + pos), "no action is enabled"))
                continue
            prop = self.props.transition[n]
            if prop.name in self.violated:
                continue
            state = chunk[pos]
            action, succ = list(self.model.successors(state))[idx]
            trace = self.trace(first + pos)
            trace = Trace((*trace.steps, Step(action, succ)))
            self.record(Violation(prop.name, "transition", trace, describe_failure(prop, state, action, succ)))
        if self.stopped:
            self.generated += _generated_before(counts, pos, idx if kind < 2 else -1)
        return e

    def end_level(self) -> None:
        if not self.exact:
            self.recent = [set(), self.recent[0]]

    def snapshot(self, frontier: int) -> Snapshot:
        return Snapshot(self.generated, self.distinct, frontier, self.depth, time.monotonic() - self.started)


def _generated_before(counts: array, pos: int, idx: int) -> int:
    """Successors generated in a chunk up to and including successor ``idx`` of state ``pos``."""
    return sum(c for c in counts[:pos] if c > 0) + idx + 1


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
    inline_below: int = INLINE_BELOW,
) -> CheckResult:
    """Explore ``model`` breadth-first with ``workers`` forked expanders; see ``explorer.check``."""
    run = _Run(model, props, workers=workers, store=store, symmetry=symmetry, stop_at_first=stop_at_first,
               check_deadlock=check_deadlock, progress=progress or Silent(), inline_below=inline_below)
    interrupted = cut_by_depth = False
    pool: _Pool | None = None
    frontier: list[Any] = []
    try:
        frontier = run.initial_level()
        while frontier and not run.stopped:
            if max_depth is not None and run.depth >= max_depth:
                cut_by_depth = True
                break
            if pool is None and len(frontier) >= inline_below:
                pool = _Pool(run.ctx, workers)
            frontier = run.expand_level(frontier, pool)
            run.end_level()
            if frontier:
                run.depth += 1
            if run.progress.due():
                run.progress.show(run.snapshot(len(frontier)))
    except KeyboardInterrupt:
        interrupted = True
    except BaseException:
        if pool is not None:
            pool.close(force=True)
            pool = None
        raise
    finally:
        if pool is not None:
            pool.close(force=interrupted or run.stopped)
    run.progress.finish()
    elapsed = time.monotonic() - run.started
    complete = not (interrupted or cut_by_depth or run.stopped)
    examples = {name: run.trace(number) for name, number in run.reached.items()}
    vacuous = list(run.pending_sometimes) if complete else []
    store_bytes = run.numbering.nbytes() + (run.table.nbytes() if store == "fingerprint" else 0)
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
        stats={"frontier_left": len(frontier), "max_depth": max_depth, "symmetry": symmetry,
               "stopped_at_violation": run.stopped, "workers": workers,
               "trace_bytes": run.numbering.nbytes(), "store_bytes": store_bytes if store == "fingerprint" else None},
    )
