"""The coordinator of the parallel local engine: workers own shards of the search, one process orders it.

Design. Breadth-first search level by level, as in the one-process engine. Levels smaller than
``INLINE_BELOW`` are expanded in the coordinator by the workers' own expansion code and replayed
as one process would (so small models never fork). When a frontier first reaches that size, the
coordinator forks its workers once (``isrcheck.explorer.search.parallel.pool``). Each owns a shard
of the visited set and of the frontier: the states whose key hashes to it
(``isrcheck.explorer.search.parallel.shard``). A level is two phases run by all workers at once:
each expands its frontier states and routes every successor it does not know to the successor's
owner; then each owner keeps, for every new state it was sent, the smallest discovery key
``(parent number << INDEX_BITS) | successor index`` (its first discovery in one-process search
order), adds the new states to its shard, evaluates the invariants on them, and sends their
sorted discovery keys. Successor generation, de-duplication, visited-set inserts and properties
all run in the workers; nothing of the visited set ever travels or is joined.

The level's order is a merge of the workers' sorted keys, itself shared among the workers
(``isrcheck.explorer.search.parallel.merge``): the merged keys are the level's breadth-first
numbering, exactly the one-process engine's, and an owner byte per position tells each worker its
new states' numbers. The workers report their first events (per property, the smallest key of a
failing step or state, the first deadlock); the coordinator takes the smallest over all workers,
so counts, depth, verdicts, ``sometimes`` examples and traces are the one-process engine's for
any number of workers, including where a run stops at its first violation mid-level (the level's
numbering is cut at that key, and the generated count is the workers' successor counts before
it). Traces are rebuilt from the numbering (``isrcheck.explorer.search.parallel.order``) by
re-running the model, so the coordinator never holds a state.

What the coordinator does while no worker runs, the serial part of a run: the levels expanded
here, the fork, and per level joining the merged parts and taking them apart (byte copies in C),
reading the workers' answers and, at a violation, rebuilding its trace. The engine reports it as
``stats["serial_seconds"]`` beside the workers' CPU (``bench/bench_parallel.py`` prints the
serial fraction and Amdahl's projection; docs/performance.md).

The visited set: exact store, each shard a set of keys (the states, their canonical forms under
symmetry, or with a model that has ``pack`` (``isrcheck.explorer.contract``) the packed states,
compact ints for the classic model); fingerprint store, each shard a ``FingerprintTable`` with the
last two levels' fingerprints also in plain sets.

A model fault (an exception of the model's functions) in a worker is reported as the one-process
engine reports it: the coordinator runs the search again in its own process up to that level
(``isrcheck.explorer.search.parallel.fault`` names the function, the state and the behaviour);
if the level expands there without the fault, the model is named nondeterministic. The contract
is audited as in one process (``isrcheck.explorer.search.audit``): init_states() twice, the first
states of the run, and a few states of each level, rebuilt from their traces, expanded twice more.
``memory_limit`` applies to the whole run: the coordinator's resident memory plus every worker's.

The state graph (liveness, ``--graph``), when asked for, is recorded by the workers and assembled
here, the one-process graph (``isrcheck.explorer.search.parallel.graph``); such runs fork at the
first level. What it does not do: checkpoint.
"""

from __future__ import annotations

import sys
import time
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.contract import canonical_fn, packing
from isrcheck.explorer.errors import ModelError, UserError
from isrcheck.explorer.progress import Progress, Silent
from isrcheck.explorer.result import CheckResult, Step, Trace, Violation
from isrcheck.explorer.search.audit import audit_level, audited_init_states
from isrcheck.explorer.search.fingerprint import encode
from isrcheck.explorer.search.local import make_key, make_result, memory_stop_note, unhashable
from isrcheck.explorer.search.memory import rss_bytes
from isrcheck.explorer.search.parallel.fault import locate_fault
from isrcheck.explorer.search.parallel.graph import GraphLevels
from isrcheck.explorer.search.parallel.merge import MAX_WORKERS, split_points, untag
from isrcheck.explorer.search.parallel.order import Numbering
from isrcheck.explorer.search.parallel.pool import Pool, WorkerDied, WorkerFault
from isrcheck.explorer.search.parallel.worker import INDEX_BITS, MAX_SUCCESSORS, Expander
from isrcheck.explorer.search.progress import Snapshot
from isrcheck.explorer.search.store_compact import FingerprintTable, fingerprint64
from isrcheck.explorer.selection import Selected, describe_failure

_MASK = (1 << INDEX_BITS) - 1
# Levels smaller than this are expanded in the coordinator: forking for them costs more than it saves.
INLINE_BELOW = 2048
# Resident memory is read at least this often (seconds).
_MEMORY_POLL = 1.0


class _MemoryCeiling(Exception):
    def __init__(self, rss: int | None) -> None:
        super().__init__()
        self.rss = rss if rss is not None else self.run_resident


@dataclass
class _Context:
    """What every worker inherits by fork."""

    model: Any
    props: Selected
    canon: Any
    store: str
    pack: Any
    unpack: Any
    graph: Any = None  # the StateGraph being recorded (liveness, --graph), else None
    graph_key: Any = None  # one process's graph key of a state (``make_key``)


class _Known:
    """The fingerprint store's visited set as a worker tests it: the last two levels' plain sets
    first (C lookups; most repeats are recent), then the compact table."""

    def __init__(self, recent: list[set[int]], table: FingerprintTable) -> None:
        self.current, self.last = recent
        self.table = table

    def seen(self, fp: int) -> bool:
        return fp in self.current or fp in self.last or fp in self.table


class _Run:
    """The coordinator's side of one run: the one-process search, fed by workers."""

    def __init__(self, model: Any, props: Selected, *, workers: int, store: str, symmetry: bool,
                 stop_at_first: bool, check_deadlock: bool, progress: Progress, inline_below: int,
                 memory_limit: int | None, rss: Any, fault: tuple[int, BaseException] | None = None,
                 graph: Any = None) -> None:
        canon = canonical_fn(model) if symmetry else None
        if symmetry and canon is None:
            raise UserError(
                "symmetry reduction was asked for, but the model has no canonical(state) method; "
                "add one that returns a symmetry representative, or run without --symmetry"
            )
        pack, unpack = packing(model)
        self.model, self.props, self.canon, self.store = model, props, canon, store
        self.pack, self.unpack = pack, unpack
        self.workers = workers
        self.stop_at_first = stop_at_first
        self.check_deadlock = check_deadlock
        self.progress = progress
        self.inline_below = inline_below
        graph_key = make_key(model, symmetry=symmetry, store=store) if graph is not None else None
        self.ctx = _Context(model, props, canon, store, pack, unpack, graph, graph_key)
        # graph runs: isrcheck.explorer.search.parallel.graph; the workers are forked at the first level
        self.graph = GraphLevels(graph, INDEX_BITS) if graph is not None else None
        self.expander = Expander(self.ctx)
        self.numbering = Numbering()
        self.exact = store == "exact"
        # Exact store, three sets of keys: ``seen``, the levels before the last; ``last``, the last
        # finished level; ``fresh``, the level being built. Workers test successors against ``seen``
        # and ``last`` as they were at the level's start (``known``), so the coordinator's replay
        # only needs ``fresh`` (a state two chunks found). ``last`` joins ``seen`` (``absorb``)
        # after the level's workers have exited. Made while they run, those inserts overlapped
        # their expansion but wrote to pages the workers share, and each first write copied a
        # page: KIP-320 3/2/2/3, two runs each, alternating, quiet machine, the coordinator took
        # 22.9-24.0 CPU s that way and 17.5-18.4 s this way (42.3-43.3 s wall against 47.9-53.4).
        self.seen: set[Any] = set()
        self.last: set[Any] = set()
        self.fresh: set[Any] = set()
        self.table = FingerprintTable()  # fingerprint store
        self.recent: list[set[int]] = [set(), set()]  # fingerprint store: this level's and the last
        self.generated = 0
        self.depth = 0
        self.levels: list[int] = []
        self.violated: dict[str, Violation] = {}
        self.pending_sometimes = [p.name for p in props.sometimes]
        self.reached: dict[str, int] = {}
        self.stopped = False
        self.started = time.monotonic()
        self.memory_limit = memory_limit
        self.rss = rss if rss is not None else self.run_resident
        self.last_rss: int | None = None
        self.next_poll = self.started + _MEMORY_POLL
        self.pool: Pool | None = None  # the workers, once forked
        self.frontier: list[Any] = []  # the frontier while levels are expanded here
        self.renumber_at: int | None = None
        # (depth, exception): a worker's model fault at that depth, run again here (``run_parallel``)
        self.fault: tuple[int, BaseException] | None = fault
        self.busy_seconds = 0.0  # wall time while some worker runs a phase
        self.worker_cpu = 0.0  # the CPU seconds the workers report for their phases

    @property
    def distinct(self) -> int:
        return len(self.numbering)

    def state_of(self, item: Any) -> Any:
        return self.unpack(item) if self.unpack is not None else item

    # -- the initial level, exactly as the one-process engine does it --------------------------

    def initial_level(self) -> list[Any]:
        level: list[Any] = []
        indices = array("Q")
        self.numbering.add_level(indices)
        pack = self.pack
        inits = audited_init_states(self.model)
        for index, state in enumerate(inits):
            self.generated += 1
            encode(state)  # refuses floats, lists, dicts with a clear ContractError
            kt = self.canon(state) if self.canon is not None else state
            if self.exact:
                fp = 0
                if pack is not None:
                    kt = pack(kt)
            else:
                fp = fingerprint64(kt)
            if not self.insert(kt, fp):
                continue
            number = len(level)
            level.append(pack(state) if pack is not None else state)
            indices.append(index)
            if self.graph is not None:
                self.graph.initial(self.ctx.graph_key(state))
            self.check_state(state, number)
            if self.stopped:
                break
        self.rotate()
        if level:
            self.depth = 1
            self.levels.append(len(level))
        return level

    def absorb(self) -> None:
        """The last level's keys join ``seen``."""
        if self.last:
            self.seen |= self.last
            self.last = set()

    def rotate(self) -> None:
        """The level is built: its keys become the last level's."""
        self.absorb()
        self.last, self.fresh = self.fresh, set()

    def insert(self, kt: Any, fp: int) -> bool:
        """Store a state's key; True if it is new."""
        if self.exact:
            try:
                if kt in self.fresh or kt in self.last or kt in self.seen:
                    return False
            except TypeError as exc:
                raise unhashable(kt, exc) from None
            self.fresh.add(kt)
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

    def known(self) -> Any:
        """What the workers test successors against: the visited set as of this level's start."""
        return (self.seen, self.last) if self.exact else _Known(self.recent, self.table)

    # -- one level ------------------------------------------------------------------------------

    def next_level(self) -> int:
        """Expand the frontier; return the size of the level it discovers. Levels are expanded
        here until one has ``inline_below`` states; then the workers are forked, and every level
        after that is theirs."""
        if self.pool is None and self.workers >= 2 and (len(self.frontier) >= self.inline_below
                                                         or self.graph is not None):
            self.start_pool()
        if self.pool is None:
            self.frontier = self.expand_level(self.frontier)
            return len(self.frontier)
        return self.sharded_level()

    def expand_level(self, frontier: list[Any]) -> list[Any]:
        """One level in this process: the one-process search, by the workers' own expansion code."""
        offset = self.numbering.offsets[-1]
        keys = array("Q")
        self.numbering.add_level(keys, seal=False)
        nxt: list[Any] = []
        if not self.exact:
            self.recent = [set(), self.recent[0]]
        skip = self.skip()
        self.audit_level(frontier)
        self.numbering.seal(-2)
        failure = self.fault[1] if self.fault is not None and self.fault[0] == self.depth else None
        self.expand_here(frontier, skip, offset, keys, nxt, worker_failure=failure)
        self.rotate()
        return nxt

    # -- levels in the workers -------------------------------------------------------------------

    def start_pool(self) -> None:
        """Fork the workers; each adopts its shard of the visited set and of the frontier."""
        exact, table = self.exact, self.table

        def visited() -> list[Any]:  # run in each worker, after the fork
            if exact:
                return [*self.seen, *self.last, *self.fresh]
            return [fp for fp in table.slots if fp]

        self.pool = Pool(self.ctx, min(self.workers, MAX_WORKERS), visited, self.frontier,
                         self.numbering.offsets[-1], self.expander.sampled)
        self.frontier = []
        self.renumber_at: int | None = None  # the workers' frontier is numbered: they adopted it

    def sharded_level(self) -> int:
        """One level in the workers (``isrcheck.explorer.search.parallel.shard``): they expand,
        settle and merge; here the merged parts are joined into the level's numbering and the
        first events are chosen, in search order. Returns the level's size (cut at a stop)."""
        pool, level = self.pool, self.depth
        assert pool is not None
        offset = len(self.numbering)
        skip = self.skip()
        frontier_size = offset - self.numbering.offsets[-1]
        self.audit_sharded(frontier_size)
        deadlock = self.check_deadlock and "deadlock" not in self.violated
        expanded = pool.phase("expand", [(level, self.renumber_at, skip, deadlock)] * len(pool),
                              lambda: self.poll(frontier_size))
        exchange = pool.exchange
        if self.renumber_at is not None:
            exchange.remove_file(exchange.name(level - 1, "tags"))  # every worker has read it
        settled = pool.phase("settle", [(level, skip)] * len(pool), lambda: self.poll(frontier_size))
        parts = split_points(self.numbering.offsets[-1], frontier_size, len(pool))
        pool.phase("merge", [(level, low, high) for low, high in parts], lambda: self.poll(frontier_size))
        for w in range(len(pool)):
            exchange.remove_file(exchange.name(level, "keys", w))
        keys, tags = untag(b"".join(exchange.take(exchange.name(level, "part", w)) for w in range(len(pool))))
        events = self.first_events(expanded, settled, deadlock)
        keep = len(keys)
        stop = None
        if self.stop_at_first and events:
            stop = events[0]
            key, kind = stop[:2]
            keep = bisect_right(keys, key) if kind == 1 else bisect_left(keys, key)
        kept = keys if keep == len(keys) else keys[:keep]
        self.numbering.add_level(kept)
        for name, key in self.first_reached(settled):
            at = bisect_left(keys, key)
            if at < keep:
                self.reached[name] = offset + at
                self.pending_sometimes.remove(name)
        for key, kind, n in events:
            if stop is not None and (key, kind) != stop[:2]:
                break
            self.record_event(key, kind, n, keys, offset)
        if stop is not None:
            parent, idx = stop[0] >> INDEX_BITS, stop[0] & _MASK
            before = pool.phase("generated_before", [(parent,)] * len(pool), lambda: None)
            self.generated += sum(before) + (idx + 1 if stop[1] < 2 else 0)
        else:
            self.generated += sum(e["generated"] for e in expanded)
        if self.graph is not None:  # the workers number their new states there
            self.graph_level(level, offset, keys, tags, keep, expanded, stop)
        elif stop is None:
            exchange.write(exchange.name(level, "tags"), tags)
            self.renumber_at = offset
        return keep

    def graph_level(self, level: int, offset: int, keys: array, tags: bytes, keep: int, expanded: list[dict],
                    stop: tuple | None) -> None:
        """Graph runs: the level's states and steps into the graph (``parallel/graph.py``), cut
        where one process stops: before a failing step, after the step to a failing state, after
        a deadlocked state."""
        pool, exchange, graph = self.pool, self.pool.exchange, self.graph
        assert pool is not None and graph is not None
        edge_limit = last = None
        if stop is not None:
            key, kind = stop[:2]
            edge_limit = key + 1 if kind == 1 else key
            last = key >> INDEX_BITS
        graph.expanded(expanded, last, last_done=stop is not None and stop[1] == 2)
        exchange.write(exchange.name(level, "tags"), tags)
        answers = pool.phase("number_graph", [(level, offset)] * len(pool), lambda: self.poll(0))
        exchange.remove_file(exchange.name(level, "tags"))
        graph.level(offset, keys, keep, self.depth, answers, edge_limit)

    def first_events(self, expanded: list[dict], settled: list[dict], deadlock: bool) -> list[tuple[int, int, int]]:
        """The level's first event of each kind and property, over all workers, in search order:
        (key, kind, property) with kind 0 a transition property failing at step ``key``, 1 a state
        property failing at the state discovered at ``key``, 2 a deadlock (``key``: the state's
        number << INDEX_BITS | MAX_SUCCESSORS, after every step of the states before it)."""
        first: dict[tuple[int, int], int] = {}
        for kind, field, answers in ((0, "transition", expanded), (1, "always", settled)):
            for answer in answers:
                for n, key in answer[field].items():
                    if key < first.get((kind, n), key + 1):
                        first[(kind, n)] = key
        events = [(key, kind, n) for (kind, n), key in first.items()]
        dead = [e["deadlock"] for e in expanded if e["deadlock"] is not None]
        if deadlock and dead:
            events.append(((min(dead) << INDEX_BITS) | MAX_SUCCESSORS, 2, 0))
        events.sort()
        return events

    def first_reached(self, settled: list[dict]) -> list[tuple[str, int]]:
        """(name, key of the first state reaching it) of each pending sometimes property reached."""
        first: dict[int, int] = {}
        for answer in settled:
            for n, key in answer["sometimes"].items():
                if key < first.get(n, key + 1):
                    first[n] = key
        names = [p.name for p in self.props.sometimes]
        return [(names[n], key) for n, key in sorted(first.items()) if names[n] in self.pending_sometimes]

    def record_event(self, key: int, kind: int, n: int, keys: array, offset: int) -> None:
        """Record one first event (``first_events``), as the one-process search records it."""
        parent, idx = key >> INDEX_BITS, key & _MASK
        if kind == 2:
            self.record(Violation("deadlock", "deadlock", self.trace(parent), "no action is enabled"))
            return
        if kind == 1:
            prop = self.props.always[n]
            if prop.name in self.violated:
                return
            trace = self.trace(offset + bisect_left(keys, key))
            self.record(Violation(prop.name, "always", trace, describe_failure(prop, trace.steps[-1].state)))
            return
        prop = self.props.transition[n]
        if prop.name in self.violated:
            return
        trace = self.trace(parent)
        state = trace.steps[-1].state
        action, succ = list(self.model.successors(state))[idx]
        trace = Trace((*trace.steps, Step(action, succ)))
        self.record(Violation(prop.name, "transition", trace, describe_failure(prop, state, action, succ)))

    def audit_sharded(self, size: int) -> None:
        """``audit_level`` for a level the workers hold: its sampled states rebuilt from traces."""
        first = self.numbering.offsets[-1]
        audit_level(self.model, size, lambda pos: self.trace(first + pos).steps[-1].state,
                    lambda pos: self.safe_trace(first + pos))

    def audit_level(self, frontier: list[Any]) -> None:
        """Expand a few states spread over the level twice more and compare (``isrcheck.explorer.search.audit``), as
        the one-process engine does; the first states of a run are audited by the expander."""
        first = self.numbering.offsets[-2]
        audit_level(self.model, len(frontier), lambda pos: self.state_of(frontier[pos]),
                    lambda pos: self.safe_trace(first + pos))

    def safe_trace(self, number: int) -> Trace | None:
        try:
            return self.trace(number)
        except Exception:  # the model failed once already; a second failure must not hide the first
            return None

    def expand_here(self, chunk: list[Any], skip: frozenset[str], first: int, keys: array, nxt: list[Any],
                    worker_failure: BaseException | None = None) -> None:
        """Expand ``chunk`` (whose first state is number ``first``) in this process and replay it.
        When the model raises, the search replays the states before the failing one (an earlier
        violation is what one process would report first) and raises a ``ModelError`` naming what
        raised, the state and the behaviour that led there. ``worker_failure``: a worker failed on
        this chunk; if the coordinator does not, the model is not deterministic."""
        try:
            result = self.expander.expand(chunk, skip, self.known(), set())
        except (UserError, ModelError, MemoryError):
            raise
        except Exception as exc:
            fault = locate_fault(exc, self.ctx, self.expander)
            if fault.pos:
                head = chunk[:fault.pos]
                self.replay(head, self.expander.expand(head, skip, self.known(), set()), first, keys, nxt)
                if self.stopped:
                    return
            state = None
            if fault.pos is not None:
                try:
                    state = self.state_of(chunk[fault.pos])
                except Exception:
                    state = chunk[fault.pos]
            trace = self.safe_trace(first + fault.pos) if fault.pos is not None else None
            raise ModelError(fault.what, exc, model=self.model, state=state, successor=fault.successor,
                             trace=trace) from exc
        if worker_failure is not None:
            raise ModelError(
                "the model", worker_failure, model=self.model,
                note="a parallel worker raised this while expanding a part of the level, but the same states "
                     "expanded without error in the coordinator: the model's functions must be deterministic "
                     "(no randomness, no state kept between calls, nothing that depends on the process); "
                     "run with --workers 1 to see where it fails") from worker_failure
        self.replay(chunk, result, first, keys, nxt)

    def poll(self, frontier: int) -> None:
        self.next_poll = time.monotonic() + _MEMORY_POLL
        self.check_memory()
        if self.progress.due():
            self.progress.show(self.snapshot(frontier))

    def stop_pool(self) -> None:
        """End the workers, keeping their figures."""
        if self.pool is not None:
            self.busy_seconds, self.worker_cpu = self.pool.busy_seconds, self.pool.worker_cpu
            self.pool.close(kill=True)
            self.pool = None

    def run_resident(self) -> int | None:
        """The whole run's resident memory: the coordinator's and every worker's."""
        own = rss_bytes()
        if own is None or self.pool is None:
            return own
        return own + self.pool.resident()

    def check_memory(self) -> None:
        self.last_rss = self.rss()
        if self.memory_limit is not None and self.last_rss is not None and self.last_rss > self.memory_limit:
            raise _MemoryCeiling(self.last_rss)

    def replay(self, chunk: list[Any], result: tuple, first: int, keys: array, nxt: list[Any]) -> None:
        """The one-process search over one expanded chunk whose first state is number ``first``."""
        counts, items, kts, fps, where, step_failures, state_failures, reached = result
        events = bool(step_failures or state_failures or reached)
        if self.check_deadlock and "deadlock" not in self.violated and 0 in counts:
            events = True
        if not events:
            self.replay_quiet(items, kts, fps, where, first, keys, nxt)
            self.generated += sum(counts) + counts.count(-1)  # -1: a state outside the bounds, not expanded
            return
        self.replay_events(chunk, result, first, keys, nxt)

    def replay_quiet(self, items: list[Any], kts: list[Any] | None, fps: array | None, where: array,
                     first: int, keys: array, nxt: list[Any]) -> None:
        """The hot loop: no property or deadlock event in this chunk. Every candidate is new unless
        an earlier chunk of this level found it too."""
        base = first << INDEX_BITS
        if self.exact:
            # No candidate is in ``seen`` or ``last``: the workers tested every one against them.
            # (Whole-chunk set operations instead of this loop measured no faster: the inserts'
            # memory traffic is the cost, not the interpreter.)
            append_key, append = keys.append, nxt.append
            fresh = self.fresh
            add = fresh.add
            for j, kt in enumerate(kts if kts is not None else items):
                if kt in fresh:
                    continue
                add(kt)
                append_key(base + where[j])
                append(items[j])
            return
        append_key, append = keys.append, nxt.append
        current = self.recent[0]
        add_fp, table_add = current.add, self.table.add
        for j, fp in enumerate(fps):
            if fp in current or not table_add(fp):
                continue
            add_fp(fp)
            append_key(base + where[j])
            append(items[j])

    def replay_events(self, chunk: list[Any], result: tuple, first: int, keys: array, nxt: list[Any]) -> None:
        """The same replay, with property results and deadlocks merged in search order."""
        counts, items, kts, fps, where, step_failures, state_failures, reached = result
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
        for j, item in enumerate(items):
            w = where[j]
            at = (w >> INDEX_BITS, w & _MASK)
            while e < len(events) and events[e][:2] <= at:
                e = self.handle_events(chunk, counts, events, e, first)
                if self.stopped:
                    return
            kt = kts[j] if kts is not None else item
            if not self.insert(kt, fps[j] if fps is not None else 0):
                continue
            number = len(self.numbering)
            keys.append(base + w)
            nxt.append(item)
            if j in failing or j in reaching:
                self.check_state(self.state_of(item), number, failing.get(j, []), reaching.get(j, []))
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
            state = self.state_of(chunk[pos])
            action, succ = list(self.model.successors(state))[idx]
            trace = self.trace(first + pos)
            trace = Trace((*trace.steps, Step(action, succ)))
            self.record(Violation(prop.name, "transition", trace, describe_failure(prop, state, action, succ)))
        if self.stopped:
            self.generated += _generated_before(counts, pos, idx if kind < 2 else -1)
        return e

    def snapshot(self, frontier: int) -> Snapshot:
        return Snapshot(self.generated, self.distinct, frontier, self.depth, time.monotonic() - self.started,
                        rss=self.last_rss)


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
    memory_limit: int | None = None,
    rss: Any = None,
    graph: Any = None,
    _fault: tuple[int, BaseException] | None = None,
) -> CheckResult:
    """Explore ``model`` breadth-first with ``workers`` forked workers; see ``isrcheck.explorer.check``.
    ``memory_limit`` bounds the run's resident memory (bytes), the coordinator's and the workers'
    together, read by ``rss`` (a function of no arguments; by default /proc for every process).
    ``graph``: a ``StateGraph`` (``isrcheck.explorer.liveness.graph_store``) to fill, the one one
    process records (``isrcheck.explorer.search.parallel.graph``)."""
    run = _Run(model, props, workers=workers, store=store, symmetry=symmetry, stop_at_first=stop_at_first,
               check_deadlock=check_deadlock, progress=progress or Silent(), inline_below=inline_below,
               memory_limit=memory_limit, rss=rss, fault=_fault, graph=graph)
    interrupted = cut_by_depth = False
    size = 0  # the frontier's size
    limit_note = ""
    store_bytes = 0
    try:
        run.frontier = run.initial_level()
        size = len(run.frontier)
        run.check_memory()
        while size and not run.stopped:
            if max_depth is not None and run.depth >= max_depth:
                cut_by_depth = True
                break
            size = run.next_level()
            if size:
                run.depth += 1
                run.levels.append(size)
            run.check_memory()
            if run.progress.due():
                run.progress.show(run.snapshot(size))
        if run.pool is not None:
            store_bytes = sum(run.pool.phase("store_bytes", [()] * len(run.pool), lambda: None))
    except KeyboardInterrupt:
        interrupted = True
    except (_MemoryCeiling, MemoryError) as exc:
        # The stop allocates nothing large: the frontier is dropped, the workers (and their shards)
        # end in stop_pool below, and the visited sets are counted where they are, never merged.
        run.frontier = []
        limit_note = memory_stop_note(exc.rss if isinstance(exc, _MemoryCeiling) else None, memory_limit,
                                      size, run.depth, ran_out=not isinstance(exc, _MemoryCeiling))
    except WorkerFault as fault:
        # A model's exception in a worker: the search runs again in this process up to that
        # level, which reports it exactly as one process does (the state, the behaviour to it, an
        # earlier violation first), or, if the level expands here without it, names the model
        # nondeterministic. Slow, but only for a model that raises.
        run.stop_pool()
        run.progress.finish()
        return run_parallel(model, props, workers=1, max_depth=max_depth, stop_at_first=stop_at_first,
                            symmetry=symmetry, check_deadlock=check_deadlock, store=store, progress=progress,
                            inline_below=inline_below, memory_limit=memory_limit, rss=rss,
                            _fault=(run.depth, fault.cause))
    finally:
        run.stop_pool()
    run.progress.finish()
    run.numbering.seal()
    if run.pool is None and not store_bytes:
        if store == "fingerprint":
            store_bytes = run.table.nbytes()
        else:  # the sets and every key in them (the packed ints, or the states' own tuples); counted
            # where they are: merging them first would grow the largest set by a third at the end
            sets = (run.seen, run.last, run.fresh)
            store_bytes = sum(sys.getsizeof(s) + sum(map(sys.getsizeof, s)) for s in sets)
    store_bytes += run.numbering.nbytes()
    elapsed = time.monotonic() - run.started
    return make_result(
        props, distinct=run.distinct, generated=run.generated, depth=run.depth, started=run.started,
        complete=not (interrupted or cut_by_depth or run.stopped or limit_note),
        violations=list(run.violated.values()),
        examples={name: run.trace(number) for name, number in run.reached.items()},
        pending_sometimes=list(run.pending_sometimes), interrupted=interrupted, store=store,
        limit="memory" if limit_note else None, limit_note=limit_note, levels=run.levels,
        stats={"frontier_left": size, "max_depth": max_depth, "symmetry": symmetry,
               "stopped_at_violation": run.stopped, "resident_memory": run.last_rss, "memory_limit": memory_limit,
               "workers": workers, "trace_bytes": run.numbering.nbytes(),
               "store_bytes": store_bytes,
               # the serial fraction's figures (docs/performance.md): wall time while no worker
               # runs (the coordinator alone), while some do, and the workers' CPU in their phases
               "serial_seconds": elapsed - run.busy_seconds, "parallel_seconds": run.busy_seconds,
               "worker_cpu_seconds": run.worker_cpu},
    )


__all__ = ["WorkerDied", "run_parallel"]
