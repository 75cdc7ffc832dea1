"""A persistent worker of the parallel engine: it owns one shard of the visited set and of the frontier.

Every state has an owner, ``hash(key) % workers`` of its visited-set key (the packed state, its
canonical form under symmetry, or its fingerprint). Worker ``me`` keeps the keys it owns (its
shard of the visited set) and the frontier states it owns, with their breadth-first numbers. The
workers are forked once, when the search first reaches a level worth sharing, and live to the end
of the run, so nothing of the visited set ever travels and no process holds all of it.

A level takes three phases, each run by every worker at once, the coordinator waiting in between:

1. ``expand``: expand the owned frontier states in number order; test each successor against the
   transition properties; key it; drop it if this worker routed the same key earlier in the level
   (its first discovery here has the smaller key, since the numbers increase) or if it is owned
   here and already visited; otherwise route it, with its discovery key ``(parent number <<
   INDEX_BITS) | successor index``, to its owner: a file per destination
   (``isrcheck.explorer.search.parallel.channel``).
2. ``settle``: gather what every worker routed here; keep, for each key, its smallest discovery
   key (its first discovery in one-process search order); drop the visited ones; the rest are the
   level's new states owned here. Add them to the shard, evaluate the state properties on them in
   discovery order (so the first failure found is the first in search order), and send their
   sorted discovery keys, tagged with this worker's number (``isrcheck.explorer.search.parallel.merge``).

3. ``merge``: merge its part of every worker's sorted keys (``isrcheck.explorer.search.parallel.merge``).

The coordinator joins the parts into the level's numbering and sends back one owner tag per
position, from which each worker reads its new states' numbers: they become its frontier.
What the worker does not do is decide which violation comes first, or where a run stops: it
reports its first events (per property, the smallest key), and the coordinator takes the smallest
over all workers, so no outcome depends on timing or on the number of workers.
"""

from __future__ import annotations

import os
import time
from array import array
from itertools import islice
from operator import truth
from typing import Any

from isrcheck.explorer.contract import within_bounds
from isrcheck.explorer.errors import ContractError
from isrcheck.explorer.search.audit import audit_successors
from isrcheck.explorer.search.local import unhashable
from isrcheck.explorer.search.parallel.channel import Closed, Exchange, dumps, loads, receive, send
from isrcheck.explorer.search.parallel.graph import WorkerGraph
from isrcheck.explorer.search.parallel.merge import LARGEST_KEY, merge_range, numbers_of, tag
from isrcheck.explorer.search.parallel.route import expand_compiled, route, settle_compiled
from isrcheck.explorer.search.parallel.worker import CONTRACT_SAMPLE, INDEX_BITS, MAX_SUCCESSORS
from isrcheck.explorer.search.store_compact import FingerprintTable, fingerprint64

# A state's owner is ``hash(key) % SPREAD % workers``. ``hash`` of an int is the int modulo
# 2**61 - 1, whose low bits follow the packed state's structure: owner ``hash % 2`` gave one
# worker up to 1.4 times its share of a level of KIP-320 3/2/2/2; modulo this prime first, at most
# 1.06 times (1.09 with 4 workers).
SPREAD = 65521


# States unpacked at once for the state properties: a slice of a level, so that a big level's
# states never all exist as tuples at once.
_SLICE = 1 << 16


class _Visited:
    """A shard of the visited set. Exact store: a set of keys. Fingerprint store: the 64-bit
    fingerprints in a ``FingerprintTable``, with the last two levels' also in plain sets (a set
    lookup runs in C, a probe of the table in Python, and most repeats are recent)."""

    def __init__(self, exact: bool) -> None:
        self.exact = exact
        self.keys: set[Any] = set()
        self.table = FingerprintTable()
        self.recent: list[set[int]] = [set(), set()]

    def __contains__(self, key: Any) -> bool:
        if self.exact:
            return key in self.keys
        return key in self.recent[0] or key in self.recent[1] or key in self.table

    def add_level(self, keys: list[Any]) -> None:
        if self.exact:
            self.keys.update(keys)
            return
        self.recent = [set(keys), self.recent[0]]
        add = self.table.add
        for fp in keys:
            add(fp)

    def nbytes(self) -> int:
        import sys

        if self.exact:
            return sys.getsizeof(self.keys) + sum(map(sys.getsizeof, self.keys))
        return self.table.nbytes()


class Shard:
    """Worker ``me`` of ``workers``: its shard of the visited set, its frontier, its level's results."""

    def __init__(self, ctx: Any, me: int, workers: int, exchange: Exchange) -> None:
        self.ctx, self.me, self.workers, self.exchange = ctx, me, workers, exchange
        self.exact = ctx.store == "exact"
        self.visited = _Visited(self.exact)
        self.frontier: list[Any] = []
        self.numbers = array("Q")
        self.counts = array("l")
        self.sampled = 0  # states audited (``audit_successors``), up to CONTRACT_SAMPLE
        self.pending: tuple[list[Any], array] = ([], array("Q"))
        self.sent: set[Any] = set()  # the keys routed lately (``expand``)
        # the state graph's part here (liveness, --graph): isrcheck.explorer.search.parallel.graph
        self.graph = WorkerGraph(ctx.graph, ctx.graph_key) if ctx.graph is not None else None

    # -- keys ----------------------------------------------------------------------------------

    def key_of(self, state: Any) -> Any:
        ctx = self.ctx
        kt = ctx.canon(state) if ctx.canon is not None else state
        if not self.exact:
            return fingerprint64(kt)
        return ctx.pack(kt) if ctx.pack is not None else kt

    def owns(self, key: Any) -> bool:
        return hash(key) % SPREAD % self.workers == self.me

    def adopt(self, visited: list[Any], frontier: list[Any], first: int) -> None:
        """At the fork: keep the owned part of the coordinator's visited keys and of its frontier
        (items numbered from ``first``)."""
        self.visited.add_level([k for k in visited if self.owns(k)])
        unpack = self.ctx.unpack
        for number, item in enumerate(frontier, start=first):
            state = unpack(item) if unpack is not None else item
            key = self.key_of(state)
            if self.owns(key):
                self.frontier.append(item)
                self.numbers.append(number)
                if self.graph is not None:  # graph runs fork at the first level: these are all the visited
                    self.graph.number_of[key] = number

    # -- phase 1 -------------------------------------------------------------------------------

    def expand(self, level: int, skip: frozenset[str], deadlock: bool) -> dict:
        """Expand the owned frontier and route every successor not known here to its owner."""
        ctx, model, workers, me = self.ctx, self.ctx.model, self.workers, self.me
        successors, canon, pack, unpack = model.successors, ctx.canon, ctx.pack, ctx.unpack
        exact = self.exact
        visited = self.visited.keys if exact else self.visited  # the set itself: a C lookup
        bounded = hasattr(model, "within_bounds")
        transition = [(n, p.predicate) for n, p in enumerate(ctx.props.transition) if p.name not in skip]
        # the key is the routed item itself: exact store, no symmetry (and no graph, whose steps
        # all travel, so the general loop below serves it)
        graph = self.graph
        same = exact and canon is None and graph is None
        if graph is not None:
            steps = [array("Q") for _ in range(workers)]  # every step's key, by its target's owner
            targets: list[list[Any]] = [[] for _ in range(workers)]
            families = [array("I") for _ in range(workers)]
            labelled, bits = array("Q"), array("Q")
        keys: list[list[Any]] = [[] for _ in range(workers)]
        items: list[list[Any]] = [[] for _ in range(workers)]
        where = [array("Q") for _ in range(workers)]
        wheres: list[list[int]] = [[] for _ in range(workers)]  # ``route``'s (lists: appended to in C)
        # The keys routed in this level and (every other level) the last one: every key routed
        # in an earlier level is visited by now, wherever it is owned, and most repeated states
        # were first seen a level or two earlier, so this spares most of the traffic of states
        # another worker owns, and within the level it drops repeats. One set, emptied every
        # second level, so that a successor costs two lookups, this and the visited shard.
        if level % 2 == 0:
            self.sent = set()
        sent = self.sent
        counts = self.counts = array("l")
        first_failure: dict[int, int] = {}
        first_deadlock = None
        if self.numbers and (self.numbers[-1] << INDEX_BITS) > LARGEST_KEY:
            raise ContractError("the parallel engine numbers at most 2**32 states; run with --workers 1")
        state = out = None
        start = 0  # where the Python loop starts: after what the compiled loop expanded
        if same and pack is not None and not bounded and not transition and self.sampled >= CONTRACT_SAMPLE:
            done = expand_compiled(self.frontier, self.numbers.tobytes(), unpack, successors, pack, sent, visited,
                                   workers, SPREAD, keys, wheres, INDEX_BITS, MAX_SUCCESSORS)
            if done is not None:
                compiled_counts, empty, start = done
                counts.extend(compiled_counts)
                if deadlock and empty >= 0:
                    first_deadlock = empty
        try:
            for number, item in islice(zip(self.numbers, self.frontier, strict=True), start, None):
                state = unpack(item) if unpack is not None else item
                if bounded and not within_bounds(model, state):
                    counts.append(-1)
                    continue
                if self.sampled < CONTRACT_SAMPLE:
                    self.sampled += 1
                    audit_successors(model, state)
                out = successors(state)
                if not isinstance(out, list):
                    out = list(out)
                if len(out) > MAX_SUCCESSORS:
                    raise ContractError(f"a state has {len(out)} successors; the parallel engine allows at most "
                                        f"{MAX_SUCCESSORS}; run with --workers 1")
                counts.append(len(out))
                if not out and deadlock and first_deadlock is None:
                    first_deadlock = number
                base = number << INDEX_BITS
                succ_keys = None
                if graph is not None:
                    labelled.append(number)
                    bits.append(graph.label(state))
                    succ_keys = [self.key_of(succ) for _, succ in out]
                    for idx, ((action, _), k) in enumerate(zip(out, succ_keys, strict=True)):
                        d = hash(k) % SPREAD % workers
                        steps[d].append(base | idx)
                        targets[d].append(k)
                        families[d].append(graph.family(action))
                if transition:
                    for idx, (action, succ) in enumerate(out):
                        for n, pred in list(transition):
                            if not pred(state, action, succ):
                                first_failure[n] = base | idx
                                transition.remove((n, pred))  # this worker's first failure is all that counts
                if same:
                    # Known here: routed this level or the last (so visited by now, wherever
                    # owned), or owned here and visited; the rest routed (parallel/route.py, in C).
                    route(out, base, pack, sent, visited, workers, SPREAD, keys, wheres)
                    continue
                for idx, (_, succ) in enumerate(out):
                    k = self.key_of(succ) if succ_keys is None else succ_keys[idx]
                    if k in sent:
                        continue
                    sent.add(k)
                    d = hash(k) % SPREAD % workers
                    if d == me and k in visited:
                        continue
                    keys[d].append(k)
                    items[d].append(pack(succ) if pack is not None else succ)
                    where[d].append(base | idx)
        except TypeError as exc:
            if "unhashable" not in str(exc):
                raise
            bad = next((t for _, t in (out or []) if not _hashable(t)), state)
            raise unhashable(bad, exc) from None
        for d in range(workers):
            if same:
                where[d] = array("Q", wheres[d])
            payload: tuple = (keys[d], None if same else items[d], where[d].tobytes())
            if graph is not None:
                payload += ((steps[d].tobytes(), targets[d], families[d].tobytes()),)
            if d == me:
                self.own = payload
            else:
                self.exchange.write(self.exchange.name(level, me, d), dumps(payload))
        generated = sum(c for c in counts if c > 0)
        answer = {"generated": generated, "transition": first_failure, "deadlock": first_deadlock}
        if graph is not None:
            answer["graph"] = {"numbers": labelled.tobytes(), "bits": bits.tobytes(), "families": graph.families}
        return answer

    # -- phase 2 -------------------------------------------------------------------------------

    def settle(self, level: int, skip: frozenset[str]) -> dict:
        """The level's new states owned here, in discovery order; their state-property events."""
        ctx = self.ctx
        sources = []
        for src in range(self.workers):
            if src == self.me:
                sources.append(self.own)
                self.own = None
            else:
                sources.append(loads(self.exchange.take(self.exchange.name(level, src, self.me))))
        if self.graph is not None:  # the steps wait for the level's numbering (``number_graph``)
            self.graph.pending = [(src, *source[3]) for src, source in enumerate(sources)]
            sources = [source[:3] for source in sources]
        if self.exact and ctx.canon is None and self.graph is None:
            frontier, discovered = self.settle_keys(sources)
        else:
            frontier, discovered = self.settle_items(sources)
        failing, reached = self.check_states(frontier, discovered, skip)
        self.pending = (frontier, discovered)
        self.exchange.write(self.exchange.name(level, "keys", self.me), tag(discovered, self.me))
        return {"size": len(frontier), "always": failing, "sometimes": reached}

    def check_states(self, frontier: list[Any], discovered: array, skip: frozenset[str]) -> tuple[dict, dict]:
        """The first new state (in discovery order) failing each invariant, and reaching each
        sometimes property: {property position: discovery key}. The predicates run in C loops
        (``map``) over slices of the level, each slice unpacked once for all of them."""
        ctx = self.ctx
        failing: dict[int, int] = {}
        reached: dict[int, int] = {}
        pending = [(failing, n, p.predicate, False) for n, p in enumerate(ctx.props.always) if p.name not in skip]
        pending += [(reached, n, p.predicate, True) for n, p in enumerate(ctx.props.sometimes) if p.name not in skip]
        unpack = ctx.unpack
        for start in range(0, len(frontier), _SLICE):
            if not pending:
                break
            part = frontier[start:start + _SLICE]
            states = list(map(unpack, part)) if unpack is not None else part
            for entry in list(pending):
                found, n, predicate, wanted = entry  # a sometimes property is reached, an invariant fails
                verdicts = list(map(truth, map(predicate, states)))
                if wanted in verdicts:
                    found[n] = discovered[start + verdicts.index(wanted)]
                    pending.remove(entry)
        return failing, reached

    def settle_keys(self, sources: list[tuple]) -> tuple[list[Any], array]:
        """``settle`` when the key is the item (exact store, no symmetry): the candidates of each
        source as a dict key -> discovery key (its own source's already tested against the
        shard), merged keeping the smaller key of a state two workers found (a few per level)."""
        visited = self.visited.keys
        done = settle_compiled([keys for keys, _, _ in sources], [raw for _, _, raw in sources], visited)
        if done is not None:
            return done
        best: dict[Any, int] = {}
        for src, (keys, _, raw) in enumerate(sources):
            where = array("Q")
            where.frombytes(raw)
            if src == self.me:
                found = dict(zip(keys, where, strict=True))
            else:
                found = {k: w for k, w in zip(keys, where, strict=True) if k not in visited}
            both = found.keys() & best.keys()
            earlier = {k: best[k] for k in both}
            best.update(found)
            for k, w in earlier.items():
                if w < best[k]:
                    best[k] = w
        frontier = sorted(best, key=best.__getitem__)
        visited.update(frontier)
        return frontier, array("Q", map(best.__getitem__, frontier))

    def settle_items(self, sources: list[tuple]) -> tuple[list[Any], array]:
        """``settle`` when a key and its item differ (symmetry, fingerprints)."""
        keys: list[Any] = []
        items: list[Any] = []
        where = array("Q")
        for k, i, w in sources:
            keys.extend(k)
            items.extend(i)
            where.frombytes(w)
        # For each key its smallest discovery key: sorted by discovery key, largest first, so that
        # a dict built in that order keeps the smallest (its last write).
        order = sorted(range(len(where)), key=where.__getitem__, reverse=True)
        best = dict(zip(map(keys.__getitem__, order), order, strict=True))
        visited = self.visited
        new = [j for k, j in best.items() if k not in visited]
        new.sort(key=where.__getitem__)
        new_keys = [keys[j] for j in new]
        visited.add_level(new_keys)
        if self.graph is not None:
            self.graph.new_keys = new_keys
        return [items[j] for j in new], array("Q", map(where.__getitem__, new))

    def merge(self, level: int, low: int, high: int | None) -> int:
        """This worker's part of the level's merge (``isrcheck.explorer.search.parallel.merge``)."""
        exchange = self.exchange
        runs = [exchange.read(exchange.name(level, "keys", w)) for w in range(self.workers)]
        part = merge_range(runs, low, high)
        exchange.write(exchange.name(level, "part", self.me), part)
        return len(part) // 8

    def renumber(self, level: int, offset: int) -> None:
        """The level's new states become the frontier, numbered as the coordinator's merge says."""
        tags = self.exchange.read(self.exchange.name(level, "tags"))
        self.frontier, _ = self.pending
        self.pending = ([], array("Q"))
        self.numbers = numbers_of(tags, self.me, offset)

    def number_graph(self, level: int, offset: int) -> dict:
        """Graph runs: the level's new states are numbered now (``renumber``), and the steps that
        reach the states owned here are resolved to numbers for the coordinator."""
        self.renumber(level, offset)
        assert self.graph is not None
        return self.graph.resolve(self.numbers, self.frontier, self.ctx.unpack)

    def generated_before(self, number: int) -> int:
        """Successors generated by the owned frontier states numbered below ``number``."""
        return sum(c for n, c in zip(self.numbers, self.counts, strict=True) if n < number and c > 0)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def serve(shard: Shard, commands: int, replies: int) -> None:
    """A worker's whole life after the fork: answer the coordinator's commands until it closes the
    command pipe. Every failure goes back as ("error", exception); the worker then waits for the
    coordinator, which ends the run."""
    while True:
        try:
            command = receive(commands)
        except Closed:
            return
        op, args = command
        started = time.process_time()
        try:
            if op == "expand":
                level, offset, skip, deadlock = args
                if offset is not None:
                    shard.renumber(level - 1, offset)
                value: Any = shard.expand(level, skip, deadlock)
            elif op == "settle":
                value = shard.settle(*args)
            elif op == "merge":
                value = shard.merge(*args)
            elif op == "number_graph":
                value = shard.number_graph(*args)
            elif op == "generated_before":
                value = shard.generated_before(*args)
            elif op == "store_bytes":
                value = shard.visited.nbytes()
            else:
                raise ValueError(f"unknown command {op!r}")
        except BaseException as exc:
            send(replies, ("error", _picklable(exc), time.process_time() - started))
            continue
        send(replies, ("ok", value, time.process_time() - started))


def _picklable(exc: BaseException) -> BaseException:
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"a parallel worker failed: {exc!r}")
    return exc


def start(ctx: Any, me: int, workers: int, exchange: Exchange, visited: list[Any], frontier: list[Any],
          first: int, sampled: int, commands: int, replies: int) -> None:
    """The forked worker's entry: adopt its shard, then serve. ``sampled``: states whose
    expansion the coordinator has audited already (``CONTRACT_SAMPLE`` in all)."""
    shard = Shard(ctx, me, workers, exchange)
    shard.sampled = sampled
    shard.adopt(visited, frontier, first)
    serve(shard, commands, replies)
    os.close(replies)
