"""The expansion of a part of a level against the visited set as of the level's start.

``Expander`` is the one-process search's inner loop in a form the parallel engine can replay:
for a list of frontier items it returns what the coordinator needs to number the new states in
search order without calling the model again:

- ``counts``: how many successors each state has (-1: outside the model's bounds, not expanded);
- the candidate successors: those whose key is not in the visited set given and not already
  found earlier in the same call. Each comes with its ``where`` (position of its parent in the
  list << ``INDEX_BITS`` | successor index) and, when the key is not the item itself (symmetry),
  its key; with the fingerprint store, its 64-bit fingerprint;
- property results: the first failing step of each transition property, and for each candidate
  the always properties it fails and the sometimes properties it reaches.

The coordinator uses it for the levels it expands itself (those below ``INLINE_BELOW`` states, and
every level when a worker's model fault is run again in one process), and
``isrcheck.explorer.search.parallel.fault`` reads its frames to name what raised. The persistent
workers (``isrcheck.explorer.search.parallel.shard``) have their own loop, which routes successors
to the shards that own them; ``CONTRACT_SAMPLE``, ``INDEX_BITS`` and ``MAX_SUCCESSORS`` are shared.

With a model that has ``pack``/``unpack`` (``isrcheck.explorer.contract``), frontier items and keys are
packed states (compact ints for the classic model): an item is unpacked to expand it and each
successor packed to test it against the visited set.
"""

from __future__ import annotations

from array import array
from typing import Any

from isrcheck.explorer.contract import within_bounds
from isrcheck.explorer.errors import ContractError
from isrcheck.explorer.search.audit import audit_successors
from isrcheck.explorer.search.local import unhashable
from isrcheck.explorer.search.store_compact import fingerprint64

CONTRACT_SAMPLE = 500
# ``where`` and the trace keys are (parent << INDEX_BITS) | successor index.
INDEX_BITS = 24
MAX_SUCCESSORS = (1 << INDEX_BITS) - 1


class Expander:
    """Expands chunks of a level against the visited set as of the level's start."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.sampled = 0

    def expand(self, chunk: list[Any], skip: frozenset[str], known: Any, local: set) -> tuple:
        """Expand ``chunk`` (frontier items). ``known``: the visited keys as of the level's start
        (two sets of keys, the levels before the last and the last; for the fingerprint store,
        ``known.seen(fp)``); ``local``: the keys (or fingerprints) this worker has already sent
        this level, updated here."""
        ctx, model = self.ctx, self.ctx.model
        successors, canon, pack, unpack = model.successors, ctx.canon, ctx.pack, ctx.unpack
        fingerprints = ctx.store == "fingerprint"
        bounded = hasattr(model, "within_bounds")
        transition = [(n, p) for n, p in enumerate(ctx.props.transition) if p.name not in skip]
        always = [(n, p.predicate) for n, p in enumerate(ctx.props.always) if p.name not in skip]
        sometimes = [(n, p.predicate) for n, p in enumerate(ctx.props.sometimes) if p.name not in skip]
        counts = array("l")
        items: list[Any] = []
        keys: list[Any] | None = [] if canon is not None and not fingerprints else None
        fps = array("q")
        where = array("Q")
        step_failures: list[tuple[int, int, int]] = []
        state_failures: list[tuple[int, int]] = []
        reached: list[tuple[int, int]] = []
        seen_fp = known.seen if fingerprints else None
        seen, last = (None, None) if fingerprints else known
        local_add = local.add
        if not (fingerprints or transition or canon is not None):
            return self.expand_plain(chunk, known, local, always, sometimes)
        for pos, item in enumerate(chunk):
            state = unpack(item) if unpack is not None else item
            if bounded and not within_bounds(model, state):
                counts.append(-1)
                continue
            if self.sampled < CONTRACT_SAMPLE:
                self.sampled += 1
                audit_successors(model, state)  # the state's encoding, and successors() twice alike
            base = pos << INDEX_BITS
            idx = -1
            for idx, (action, succ) in enumerate(successors(state)):
                if transition:
                    for n, prop in list(transition):
                        if not prop.predicate(state, action, succ):
                            step_failures.append((pos, idx, n))
                            transition.remove((n, prop))  # the chunk's first failure is all that counts
                try:
                    if fingerprints:
                        fp = fingerprint64(canon(succ) if canon is not None else succ)
                        if fp in local or seen_fp(fp):
                            continue
                        local_add(fp)
                        fps.append(fp)
                        out = pack(succ) if pack is not None else succ
                    else:
                        out = pack(succ) if pack is not None else succ
                        if canon is None:
                            key = out
                        else:
                            key = canon(succ)
                            if pack is not None:
                                key = pack(key)
                        if key in seen or key in last or key in local:
                            continue
                        local_add(key)
                        if keys is not None:
                            keys.append(key)
                except TypeError as exc:
                    raise unhashable(succ, exc) from None
                size = len(items)
                items.append(out)
                where.append(base | idx)
                if always:
                    for n, pred in always:
                        if not pred(succ):
                            state_failures.append((size, n))
                if sometimes:
                    for n, pred in sometimes:
                        if pred(succ):
                            reached.append((size, n))
            if idx >= MAX_SUCCESSORS:
                raise ContractError(f"a state has {idx + 1} successors; the parallel engine allows at most "
                                    f"{MAX_SUCCESSORS}; run with --workers 1")
            counts.append(idx + 1)
        return counts, items, keys, fps if fingerprints else None, where, step_failures, state_failures, reached

    def expand_plain(self, chunk: list[Any], known: Any, local: set, always: list, sometimes: list) -> tuple:
        """``expand`` for the common case (exact store, no symmetry, no transition property): the
        key is the state or the packed state, and the visited-set test of every successor is one
        comprehension, so only the candidates (about a third) run through Python statements."""
        model = self.ctx.model
        successors, pack, unpack = model.successors, self.ctx.pack, self.ctx.unpack
        seen, last = known
        bounded = hasattr(model, "within_bounds")
        counts = array("l")
        items: list[Any] = []
        where = array("Q")
        state_failures: list[tuple[int, int]] = []
        reached: list[tuple[int, int]] = []
        local_add, append, where_append = local.add, items.append, where.append
        try:
            for pos, state in enumerate(chunk):
                if unpack is not None:
                    state = unpack(state)
                if bounded and not within_bounds(model, state):
                    counts.append(-1)
                    continue
                if self.sampled < CONTRACT_SAMPLE:
                    self.sampled += 1
                    audit_successors(model, state)  # the state's encoding, and successors() twice alike
                out = successors(state)
                if not isinstance(out, list):
                    out = list(out)
                if len(out) > MAX_SUCCESSORS:
                    raise ContractError(f"a state has {len(out)} successors; the parallel engine allows at most "
                                        f"{MAX_SUCCESSORS}; run with --workers 1")
                counts.append(len(out))
                base = pos << INDEX_BITS
                if pack is None:
                    fresh = [(i, t, t) for i, (_, t) in enumerate(out) if t not in seen and t not in last]
                else:
                    fresh = [(i, t, k) for i, (_, t) in enumerate(out)
                             if (k := pack(t)) not in seen and k not in last]
                for idx, succ, key in fresh:
                    size = len(local)
                    local_add(key)
                    if len(local) == size:
                        continue
                    size = len(items)
                    append(key)
                    where_append(base | idx)
                    if always:
                        for n, pred in always:
                            if not pred(succ):
                                state_failures.append((size, n))
                    if sometimes:
                        for n, pred in sometimes:
                            if pred(succ):
                                reached.append((size, n))
        except TypeError as exc:
            if "unhashable" not in str(exc):
                raise
            raise unhashable(next((t for _, t in out if not _hashable(t)), state), exc) from None
        return counts, items, None, None, where, [], state_failures, reached


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
