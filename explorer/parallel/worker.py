"""One worker process of the parallel engine: it expands its share of a level and owns one shard
of the visited set (the states whose ``hash()`` is congruent to its id modulo the number of
workers), which is also its share of the next frontier.

A worker is forked from the coordinator, so it already holds the model, the selected properties
and the options; only small commands travel on its pipe, and the bulk of a level (the candidate
states and the (parent number, successor index) key of each) travels through files in a
memory-backed directory, one file per (phase, sender, receiver). Phases of a level:

- ``expand``: successors of each frontier state in number order; transition properties; a
  per-level dedup of this worker's own successors (the first occurrence is this worker's least
  key); each candidate goes to the shard that owns it.
- ``dedup``: as a shard owner, keep for every candidate not seen before the least key over all
  senders (the occurrence a one-process search meets first), insert it, and hand the sorted keys
  to the coordinator, which merges them into the level's breadth-first order.
- ``adopt``: number the new states by their place in that order; they are this worker's next
  frontier; check the state properties on them.

What no phase does: decide anything by arrival order. Every choice is a minimum over keys.
"""

from __future__ import annotations

import os
import pickle
import signal
from array import array
from bisect import bisect_left
from typing import Any

from explorer.contract import within_bounds
from explorer.errors import ContractError
from explorer.fingerprint import encode
from explorer.selection import describe_failure
from explorer.store_compact import ExactTable, FingerprintTable

CONTRACT_SAMPLE = 500
# A key is (parent number << INDEX_BITS) | successor index: ordering keys orders (parent, index).
INDEX_BITS = 24
DEADLOCK_INDEX = (1 << INDEX_BITS) - 1  # orders a deadlock after every successor of the same state


def write_file(path: str, payload: Any) -> None:
    with open(path + ".tmp", "wb") as f:
        pickle.dump(payload, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(path + ".tmp", path)


def read_file(path: str) -> Any:
    with open(path, "rb") as f:
        payload = pickle.load(f)
    os.unlink(path)
    return payload


class Worker:
    """The state of one worker between commands."""

    def __init__(self, ctx: Any, wid: int) -> None:
        self.ctx = ctx
        self.wid = wid
        self.workers = ctx.workers
        self.table = ExactTable() if ctx.store == "exact" else FingerprintTable()
        self.frontier: list[tuple[int, Any]] = []
        self.local_bucket: Any = None
        self.pending: list[tuple[int, Any]] = []
        self.expanded: list[tuple[int, int]] = []
        self.sampled = 0
        # The states this shard stored in the last two levels, as a plain set: most successors
        # that are not new were stored one or two levels earlier, and a set lookup runs in C
        # while a probe of the compact table runs in Python.
        self.recent: list[set[Any]] = [set(), set()]

    def path(self, *parts: Any) -> str:
        return os.path.join(self.ctx.tmpdir, "_".join(map(str, parts)))

    # -- commands ------------------------------------------------------------------------------

    def init(self, owned: list[tuple[int, Any]]) -> None:
        """Take the initial states this shard owns (number, state): store them, expand them next."""
        canon, add = self.ctx.canon, self.table.add_state
        kts = [canon(state) if canon is not None else state for _, state in owned]
        for kt in kts:
            add(kt)
        self.recent = [set(kts), set()]
        self.frontier = owned

    def expand(self, level: int, violated: set[str]) -> dict[str, Any]:
        ctx, model = self.ctx, self.ctx.model
        successors, canon, W = model.successors, ctx.canon, self.workers
        bounded = hasattr(model, "within_bounds")
        transition = [(n, p) for n, p in enumerate(ctx.props.transition) if p.name not in violated]
        deadlock = ctx.check_deadlock and "deadlock" not in violated
        states: list[list[Any]] = [[] for _ in range(W)]
        canons: list[list[Any]] | None = [[] for _ in range(W)] if canon is not None else None
        keys = [array("Q") for _ in range(W)]
        hashes = [array("q") for _ in range(W)]
        local: dict[Any, int] = {}
        setdefault = local.setdefault
        events: list[tuple] = []
        found_step: set[str] = set()
        expanded: list[tuple[int, int]] = []
        generated = 0
        limit = DEADLOCK_INDEX
        for number, state in self.frontier:
            if bounded and not within_bounds(model, state):
                continue
            if self.sampled < CONTRACT_SAMPLE:
                self.sampled += 1
                encode(state)  # refuses floats, lists, dicts with a clear ContractError
            base = number << INDEX_BITS
            idx = -1
            for idx, (action, succ) in enumerate(successors(state)):
                if transition:
                    for pos, prop in transition:
                        if prop.name not in found_step and not prop.predicate(state, action, succ):
                            found_step.add(prop.name)
                            events.append(("transition", number, idx, pos, prop.name,
                                           describe_failure(prop, state, action, succ)))
                kt = canon(succ) if canon is not None else succ
                n = len(local)
                try:
                    if setdefault(kt, n) != n:
                        continue
                    h = hash(kt)
                except TypeError as exc:
                    raise _unhashable(succ, exc) from None
                o = h % W
                states[o].append(succ)
                if canons is not None:
                    canons[o].append(kt)
                keys[o].append(base | idx)
                hashes[o].append(h)
            count = idx + 1
            if count >= limit:
                raise ContractError(f"a state has {count} successors; the parallel engine allows fewer than {limit}")
            generated += count
            expanded.append((number, count))
            if count == 0 and deadlock and "deadlock" not in found_step:
                found_step.add("deadlock")
                events.append(("deadlock", number, DEADLOCK_INDEX, 0, "deadlock", "no action is enabled"))
        self.expanded = expanded
        self.frontier = []
        for o in range(W):
            bucket = (states[o], canons[o] if canons is not None else None, keys[o], hashes[o])
            if o == self.wid:
                self.local_bucket = bucket
            else:
                write_file(self.path("a", level, self.wid, o), bucket)
        return {"generated": generated, "events": events}

    def dedup(self, level: int) -> int:
        """Keep, for each candidate this shard has not stored, the least key over all senders;
        store the new ones; write their sorted keys for the coordinator."""
        best: dict[Any, int] = {}
        setdefault = best.setdefault
        kept_keys: list[int] = []
        kept_states: list[Any] = []
        kept_hashes: list[int] = []
        for src in range(self.workers):
            if src == self.wid:
                bucket, self.local_bucket = self.local_bucket, None
            else:
                bucket = read_file(self.path("a", level, src, self.wid))
            states, canons, keys, hashes = bucket
            for kt, state, key, h in zip(canons if canons is not None else states, states, keys, hashes, strict=True):
                n = len(kept_keys)
                i = setdefault(kt, n)
                if i == n:
                    kept_keys.append(key)
                    kept_states.append(state)
                    kept_hashes.append(h)
                elif key < kept_keys[i]:
                    kept_keys[i] = key
                    kept_states[i] = state
        add = self.table.add_hashed
        last, before = self.recent
        fresh: list[Any] = []
        new: list[tuple[int, Any]] = []
        for kt, i in best.items():
            if kt in last or kt in before or not add(kt, kept_hashes[i]):
                continue
            fresh.append(kt)
            new.append((kept_keys[i], kept_states[i]))
        self.recent = [set(fresh), last]
        new.sort(key=_first)
        self.pending = new
        write_file(self.path("k", level, self.wid), array("Q", [k for k, _ in new]))
        return len(new)

    def adopt(self, level: int, offset: int, violated: set[str], pending_sometimes: list[str]) -> dict[str, Any]:
        """Number this shard's new states by their place in the merged order; they are the next
        frontier; check the state properties on them."""
        merged = read_file(self.path("m", level, self.wid))
        frontier: list[tuple[int, Any]] = []
        append = frontier.append
        lo = 0
        for key, state in self.pending:
            lo = bisect_left(merged, key, lo)
            append((offset + lo, state))
            lo += 1
        self.pending = []
        self.frontier = frontier
        return {"events": self.check_states(frontier, violated, pending_sometimes), "size": len(frontier)}

    def check_states(self, frontier: list[tuple[int, Any]], violated: set[str],
                     pending_sometimes: list[str]) -> list[tuple]:
        props = self.ctx.props
        always = [(n, p) for n, p in enumerate(props.always) if p.name not in violated]
        sometimes = [p for p in props.sometimes if p.name in pending_sometimes]
        events: list[tuple] = []
        if not always and not sometimes:
            return events
        for number, state in frontier:
            if always:
                for pos, prop in list(always):
                    if not prop.predicate(state):
                        events.append(("always", number, pos, prop.name, describe_failure(prop, state)))
                        always.remove((pos, prop))  # later states of this shard come later in order
            if sometimes:
                for prop in list(sometimes):
                    if prop.predicate(state):
                        events.append(("sometimes", number, 0, prop.name, ""))
                        sometimes.remove(prop)
            if not always and not sometimes:
                break
        return events

    def generated_before(self, number: int, index: int) -> int:
        """Successors this worker generated from states numbered below ``number``, plus
        ``index + 1`` if it expanded ``number`` itself (the one-process count at a stop)."""
        total = 0
        for n, count in self.expanded:
            if n < number:
                total += count
            elif n == number:
                total += min(count, index + 1)
        return total

    def stored_bytes(self) -> int:
        return self.table.nbytes()


def _first(entry: tuple[int, Any]) -> int:
    return entry[0]


def _unhashable(state: Any, exc: Exception) -> ContractError:
    return ContractError(
        f"a state is not hashable ({exc}); states must be built from ints, strings, tuples and "
        f"frozensets, not lists, sets or dicts: {state!r:.200}"
    )


def serve(ctx: Any, wid: int, conn: Any) -> None:
    """The worker's loop: run each command from the coordinator, answer with its result or error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C and stops us
    worker = Worker(ctx, wid)
    while True:
        try:
            command, args = conn.recv()
        except EOFError:
            return
        if command == "stop":
            return
        try:
            conn.send(("ok", getattr(worker, command)(*args)))
        except BaseException as exc:  # every failure goes back to the coordinator, which raises it
            try:
                pickle.dumps(exc)
                conn.send(("error", exc))
            except Exception:
                conn.send(("error", RuntimeError(f"worker {wid} failed: {exc!r}")))
