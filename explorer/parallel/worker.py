"""One worker process of the parallel engine: it expands its share of a level, owns one shard of
the visited set, and keeps the states it generated until they are numbered.

A worker is forked from the coordinator, so it already holds the model, the selected properties
and the options; only small commands travel on its pipe, and the bulk of a level (encodings or
fingerprints, and the (parent number, successor index) of each candidate) travels through files
in a memory-backed directory, one file per (phase, sender, receiver). Phases of a level:

- ``expand``: successors of each frontier state in number order; transition properties; a
  per-level dedup of this worker's own successors (the first occurrence is this worker's least
  (parent number, successor index)); each candidate goes to the shard that owns its fingerprint.
- ``dedup``: as a shard owner, keep for every candidate not seen before the least
  (parent number, successor index) over all senders, insert it, and hand the sorted keys to the
  coordinator, which merges them into the level's breadth-first order.
- ``number``: give each new state its breadth-first number and tell its generator.
- ``adopt``: as a generator, take the numbered states as the next frontier and check the state
  properties on them.

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
from explorer.store_compact import ExactTable, FingerprintTable, fast_encoder

CONTRACT_SAMPLE = 500
DEADLOCK_INDEX = 1 << 62  # orders a deadlock after every successor of the same state
_TAG_BITS = 32


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
        self.exact = ctx.store == "exact"
        self.table = ExactTable() if self.exact else FingerprintTable()
        self.frontier: list[tuple[int, Any]] = []
        self.cands: list[Any] = []
        self.bucket_js: list[array] = []
        self.local_bucket: Any = None
        self.pending: list[int] = []
        self.expanded: list[tuple[int, int]] = []
        self.sampled = 0
        self.encoder = fast_encoder()

    def path(self, *parts: Any) -> str:
        return os.path.join(self.ctx.tmpdir, "_".join(map(str, parts)))

    # -- commands ------------------------------------------------------------------------------

    def init(self, owned: list[Any], frontier: list[tuple[int, Any]]) -> None:
        for key in owned:
            if self.exact:
                self.table.add(key, hash(key) or 1)
            else:
                self.table.add(key)
        self.frontier = frontier

    def expand(self, level: int, violated: set[str]) -> dict[str, Any]:
        ctx, model = self.ctx, self.ctx.model
        successors, canon, encoder, W, exact = model.successors, ctx.canon, self.encoder, self.workers, self.exact
        bounded = hasattr(model, "within_bounds")
        transition = [(n, p) for n, p in enumerate(ctx.props.transition) if p.name not in violated]
        deadlock = ctx.check_deadlock and "deadlock" not in violated
        keys = [bytearray() if exact else array("q") for _ in range(W)]
        lens = [array("L") for _ in range(W)]
        parents = [array("q") for _ in range(W)]
        idxs = [array("L") for _ in range(W)]
        js = [array("L") for _ in range(W)]
        local: dict[Any, None] = {}
        cands: list[Any] = []
        events: list[tuple] = []
        found_step: set[str] = set()
        expanded: list[tuple[int, int]] = []
        generated = 0
        widest = 0
        for number, state in self.frontier:
            if bounded and not within_bounds(model, state):
                continue
            if self.sampled < CONTRACT_SAMPLE:
                self.sampled += 1
                encode(state)  # refuses floats, lists, dicts with a clear ContractError
            idx = -1
            for idx, (action, succ) in enumerate(successors(state)):
                if transition:
                    for pos, prop in transition:
                        if prop.name not in found_step and not prop.predicate(state, action, succ):
                            found_step.add(prop.name)
                            events.append(("transition", number, idx, pos, prop.name,
                                           describe_failure(prop, state, action, succ)))
                kt = canon(succ) if canon is not None else succ
                try:
                    if kt in local:
                        continue
                except TypeError as exc:
                    raise _unhashable(succ, exc) from None
                local[kt] = None
                enc = encoder(kt)
                fp = hash(enc) or 1
                o = fp % W
                if exact:
                    keys[o] += enc
                    lens[o].append(len(enc))
                else:
                    keys[o].append(fp)
                parents[o].append(number)
                idxs[o].append(idx)
                js[o].append(len(cands))
                cands.append(succ)
            count = idx + 1
            generated += count
            expanded.append((number, count))
            if count > widest:
                widest = count
            if count == 0 and deadlock and "deadlock" not in found_step:
                found_step.add("deadlock")
                events.append(("deadlock", number, DEADLOCK_INDEX, 0, "deadlock", "no action is enabled"))
        self.cands = cands
        self.bucket_js = js
        self.expanded = expanded
        for o in range(W):
            bucket = (bytes(keys[o]) if exact else keys[o], lens[o], parents[o], idxs[o])
            if o == self.wid:
                self.local_bucket = bucket
            else:
                write_file(self.path("a", level, self.wid, o), bucket)
        return {"generated": generated, "widest": widest, "events": events, "candidates": len(cands)}

    def dedup(self, level: int, width: int) -> int:
        """Keep, for each fingerprint/encoding not in this shard, the least tagged key; insert the
        new ones; write their sorted keys for the coordinator."""
        W, exact, table = self.workers, self.exact, self.table
        best: dict[Any, int] = {}
        get = best.get
        for src in range(W):
            if src == self.wid:
                bucket, self.local_bucket = self.local_bucket, None
            else:
                bucket = read_file(self.path("a", level, src, self.wid))
            keys, lens, parents, idxs = bucket
            tag = src
            if exact:
                at = 0
                for size, par, ix in zip(lens, parents, idxs):
                    end = at + size
                    key = keys[at:end]
                    at = end
                    v = ((par * width + ix) << _TAG_BITS) | tag
                    tag += W
                    prev = get(key)
                    if prev is None or v < prev:
                        best[key] = v
            else:
                for key, par, ix in zip(keys, parents, idxs):
                    v = ((par * width + ix) << _TAG_BITS) | tag
                    tag += W
                    prev = get(key)
                    if prev is None or v < prev:
                        best[key] = v
            if tag >= 1 << _TAG_BITS:
                raise ContractError("a level has more than 2**32 candidate states per worker; use fewer bounds")
        add = table.add
        if exact:
            new = [v for key, v in best.items() if add(key, hash(key) or 1)]
        else:
            new = [v for key, v in best.items() if add(key)]
        new.sort()
        self.pending = new
        write_file(self.path("k", level, self.wid), array("Q", [v >> _TAG_BITS for v in new]))
        return len(new)

    def number(self, level: int, offset: int) -> None:
        """Number this shard's new states by their place in the merged order; tell generators."""
        W = self.workers
        merged = read_file(self.path("m", level, self.wid))
        positions = [array("L") for _ in range(W)]
        numbers = [array("q") for _ in range(W)]
        lo = 0
        mask = (1 << _TAG_BITS) - 1
        for v in self.pending:
            lo = bisect_left(merged, v >> _TAG_BITS, lo)
            tag = v & mask
            src = tag % W
            positions[src].append(tag // W)
            numbers[src].append(offset + lo)
            lo += 1
        self.pending = []
        for g in range(W):
            write_file(self.path("n", level, self.wid, g), (positions[g], numbers[g]))

    def adopt(self, level: int, violated: set[str], pending_sometimes: list[str]) -> dict[str, Any]:
        """Take this worker's numbered states as its next frontier and check state properties."""
        W, cands = self.workers, self.cands
        frontier: list[tuple[int, Any]] = []
        for o in range(W):
            positions, numbers = read_file(self.path("n", level, o, self.wid))
            js = self.bucket_js[o]
            frontier.extend((n, cands[js[p]]) for p, n in zip(positions, numbers))
        frontier.sort(key=_first)
        self.cands, self.bucket_js = [], []
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
                        always.remove((pos, prop))  # later states of this worker come later in order
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
        ``index + 1`` if it expanded ``number`` itself (the sequential count at a stop)."""
        total = 0
        for n, count in self.expanded:
            if n < number:
                total += count
            elif n == number:
                total += min(count, index + 1)
        return total


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
