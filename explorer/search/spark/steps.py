"""The two steps of a BFS level on blocks of states, the same code in the driver and on executors.

``expand`` turns frontier states into candidate successors keyed by fingerprint (16 bytes),
deduplicated within the batch, checking transition properties and deadlocks on the way.
``merge`` takes every candidate block of one partition with that partition's visited set (a
sorted ``S16`` array) and keeps the candidates not seen before, checking ``always`` and
``sometimes`` properties on them; it works on whole arrays (in C where ``fast`` is built, else in
NumPy), so its Python cost is per new state (the property checks, the states' list), never per
stored state. ``dedup`` is the driver's version of ``merge`` on a Python set, for the first, small
levels.

Every choice is made by a total order on fingerprints (``level`` explains why): the parent kept
for a new state is the smallest ``(parent fingerprint, action index)``, the state reported for a
property the smallest fingerprint.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Any

from isrcheck.explorer.search.audit import audit_successors
from isrcheck.explorer.search.spark import clock, fast
from isrcheck.explorer.search.spark.blocks import FP, NO_PARENT, decode_states, encode_states
from isrcheck.explorer.search.spark.level import Context, new_report


def initial_candidates(ctx: Context) -> tuple[dict[Any, tuple], dict[str, Any]]:
    """Level 1's candidates: the initial states, parent ``NO_PARENT``, ordered by their index."""
    rep = new_report()
    cands: dict[Any, tuple] = {}
    for index, state in enumerate(ctx.model.init_states()):
        rep["generated"] += 1
        q = ctx.pack(state)
        ident = q if ctx.ident_of is None else ctx.ident_of(state)
        if ident not in cands:  # the first index is the smallest
            cands[ident] = (NO_PARENT, index, q)
    return cands, rep


def expand(ctx: Context, fps: Iterable[bytes], packed: Iterable[Any], transition: frozenset[str],
           cands: dict[Any, tuple] | None = None, audit: int = 0) -> tuple[dict[Any, tuple], dict[str, Any]]:
    """Successors of the states ``packed`` (fingerprints ``fps``) as {identity (``Context.ident_of``):
    (parent, action index, packed state)}, keeping the smallest (parent, action index) per state;
    and the batch's report. ``transition`` names the transition properties still to check. The
    first ``audit`` states are expanded twice more and checked against the model contract.
    Nothing is fingerprinted here: ``split`` fingerprints what is left after deduplication."""
    model, unpack, ident_of = ctx.model, ctx.unpack, ctx.ident_of
    pack = ctx.pack if ctx.packs else None
    successors = model.successors
    bounded, deadlock = ctx.bounded, ctx.check_deadlock
    checks = [p for p in ctx.props.transition if p.name in transition]
    rep = new_report()
    found = rep["transition"]
    cands = {} if cands is None else cands
    get = cands.get
    generated = expanded = 0
    for fp, p in zip(fps, packed, strict=True):
        state = unpack(p)
        if bounded and not model.within_bounds(state):
            continue
        expanded += 1
        if audit > 0:
            audit -= 1
            audit_successors(model, state)
        aidx = -1
        for aidx, (action, nxt) in enumerate(successors(state)):
            if checks:
                for prop in checks:
                    if not prop.predicate(state, action, nxt):
                        step = (int.from_bytes(fp, "big"), aidx)
                        if prop.name not in found or step < found[prop.name]:
                            found[prop.name] = step
            q = nxt if pack is None else pack(nxt)
            ident = q if ident_of is None else ident_of(nxt)
            old = get(ident)
            # the frontier comes in fingerprint order, so the first parent is nearly always the best
            if old is None or fp < old[0] or (fp == old[0] and aidx < old[1]):
                cands[ident] = (fp, aidx, q)
        generated += aidx + 1
        if deadlock and aidx < 0:
            fpi = int.from_bytes(fp, "big")
            if rep["deadlock"] is None or fpi < rep["deadlock"]:
                rep["deadlock"] = fpi
    rep["generated"], rep["expanded"] = generated, expanded
    return cands, rep


def part_of(fp: bytes, partitions: int) -> int:
    """The partition of a fingerprint: its low 64 bits modulo the partition count (what ``split``
    computes on whole arrays)."""
    return int.from_bytes(fp[8:], "big") % partitions


def by_fingerprint(ctx: Context, cands: dict[Any, tuple]) -> dict[bytes, tuple]:
    """``cands`` keyed by fingerprint instead of identity."""
    keys = ctx.keys(list(cands))
    return {keys[i * FP:(i + 1) * FP]: v for i, v in enumerate(cands.values())}


def split(ctx: Context, cands: dict[Any, tuple], partitions: int) -> dict[int, tuple[bytes, bytes, bytes, bytes]]:
    """Candidates as one block per destination partition: (fingerprints, parents, action indices
    as uint32, states' block). Fingerprinted here, once per distinct candidate of the batch."""
    import numpy as np

    if not cands:
        return {}
    values = list(cands.values())
    keys = ctx.keys(list(cands))
    fps = np.frombuffer(keys, dtype="S16")
    dest = np.frombuffer(keys, dtype=">u8")[1::2] % np.uint64(partitions)
    parents = np.frombuffer(b"".join([v[0] for v in values]), dtype="S16")
    actions = np.fromiter((v[1] for v in values), dtype="<u4", count=len(values))
    order = np.argsort(dest, kind="stable")
    bounds = np.searchsorted(dest[order], np.arange(partitions + 1, dtype=np.uint64))
    out = {}
    for j in range(partitions):
        idx = order[bounds[j]:bounds[j + 1]]
        if len(idx):
            out[j] = (fps[idx].tobytes(), parents[idx].tobytes(), actions[idx].tobytes(),
                      encode_states([values[i][2] for i in idx.tolist()]))
    return out


def block(items: list[tuple[bytes, tuple]]) -> tuple[bytes, bytes, bytes, bytes]:
    return (b"".join(k for k, _ in items), b"".join(v[0] for _, v in items),
            array("I", [v[1] for _, v in items]).tobytes(), encode_states([v[2] for _, v in items]))


def check_new(ctx: Context, fps: bytes, packed: list[Any], always: frozenset[str], sometimes: frozenset[str],
              rep: dict[str, Any]) -> None:
    """Check ``always`` and ``sometimes`` properties on new states, keeping the smallest fingerprint."""
    inv = [p for p in ctx.props.always if p.name in always]
    wit = [p for p in ctx.props.sometimes if p.name in sometimes]
    if not (inv or wit):
        return
    bad, hit, unpack = rep["always"], rep["sometimes"], ctx.unpack
    if fast.COMPILED and len(packed) > 1 and _ascending(fps):
        # every predicate on every state in C; in fingerprint order the first is the smallest
        at = fast.first(ctx, packed, inv, wit)
        for prop, i, found in zip(inv + wit, at, [bad] * len(inv) + [hit] * len(wit), strict=True):
            if i >= 0:
                fp = int.from_bytes(fps[i * FP:(i + 1) * FP], "big")
                if prop.name not in found or fp < found[prop.name]:
                    found[prop.name] = fp
        return
    for i, p in enumerate(packed):
        state = unpack(p)
        fp = None
        for prop in inv:
            if not prop.predicate(state):
                fp = int.from_bytes(fps[i * FP:(i + 1) * FP], "big")
                if prop.name not in bad or fp < bad[prop.name]:
                    bad[prop.name] = fp
        for prop in wit:
            if prop.predicate(state):
                fp = int.from_bytes(fps[i * FP:(i + 1) * FP], "big")
                if prop.name not in hit or fp < hit[prop.name]:
                    hit[prop.name] = fp


def _ascending(fps: bytes) -> bool:
    """Whether concatenated fingerprints are in strictly ascending order (checked on the high
    halves: equal ones answer no, and the caller takes the path that needs no order)."""
    import numpy as np

    hi = high(fps)
    return bool(np.all(hi[1:] > hi[:-1]))


def dedup(ctx: Context, seen: Any, cands: dict[Any, tuple], always: frozenset[str],
          sometimes: frozenset[str]) -> tuple[dict[bytes, tuple], dict[str, Any]]:
    """The driver's merge: the candidates (``expand``'s) not in ``seen`` (a set of fingerprints),
    keyed by fingerprint in fingerprint order, and the report of the properties on them. ``seen``
    is not modified."""
    keyed = by_fingerprint(ctx, cands)
    best = {fp: keyed[fp] for fp in sorted(keyed) if fp not in seen}
    rep = new_report()
    rep["new"] = len(best)
    check_new(ctx, b"".join(best), [v[2] for v in best.values()], always, sometimes, rep)
    return best, rep


def high(fps: Any) -> Any:
    """The first 8 bytes of each fingerprint of an ``S16`` array (or of their concatenated bytes)
    as native ``uint64``: in the same order as the fingerprints, and sorted and searched in
    NumPy's integer code, several times faster than ``S16`` strings (docs/spark.md, third round).
    Two fingerprints share them with probability 2**-64, so every use below checks the whole
    fingerprint where the high halves are equal."""
    import numpy as np

    data = fps if isinstance(fps, bytes | bytearray | memoryview) else np.ascontiguousarray(fps).view(np.uint8)
    return np.frombuffer(data, dtype=">u8")[0::2].astype(np.uint64)


def best_first(fps: Any, parents: Any, actions: Any) -> tuple[Any, Any]:
    """The order of candidates by (fingerprint, parent, action), and the fingerprints in it.
    Sorted on the fingerprints' high halves (``high``); only the candidates whose high half
    arrived more than once (the same fingerprint from different expansion tasks, each of which
    deduplicates its own, or, rarely, two fingerprints sharing it) are sorted on all three keys,
    and on their position last, so equal keys keep their order as a stable sort would."""
    import numpy as np

    if fast.COMPILED:  # the same order, with the repeated fingerprints put in place in C
        order = fast.best(fps, parents, actions)
        return order, fps[order]
    hi = high(fps)
    order = np.argsort(hi, kind="stable")
    ordered_hi = hi[order]
    same = ordered_hi[1:] == ordered_hi[:-1]
    if same.any():
        repeated = np.zeros(len(order), dtype=bool)
        repeated[1:] |= same
        repeated[:-1] |= same
        sub = order[repeated]  # whole groups, in high-half order: sorting them keeps their places
        order[repeated] = sub[np.lexsort((sub, actions[sub], parents[sub], fps[sub]))]
    return order, fps[order]


FEW = 64  # at most one key per FEW stored fingerprints: searched on the whole fingerprints


def _member(sorted_fps: Any, keys: Any, sorted_hi: Any = None) -> Any:
    """Which of ``keys`` the sorted array holds (``sorted_hi``: its ``high``, when the caller has it)."""
    import numpy as np

    known = np.zeros(len(keys), dtype=bool)
    if not len(sorted_fps) or not len(keys):
        return known
    if sorted_hi is None and len(keys) * FEW < len(sorted_fps):
        # a few keys (a small level's): searching the whole fingerprints costs less than taking
        # the high halves of the whole array (a copy of 8 bytes a stored state)
        pos = np.searchsorted(sorted_fps, keys)
        inside = np.flatnonzero(pos < len(sorted_fps))
        known[inside] = sorted_fps[pos[inside]] == keys[inside]
        return known
    sorted_hi = high(sorted_fps) if sorted_hi is None else sorted_hi
    keys_hi = high(keys)
    pos = np.searchsorted(sorted_hi, keys_hi)
    inside = np.flatnonzero(pos < len(sorted_fps))
    hit = inside[sorted_hi[pos[inside]] == keys_hi[inside]]
    known[hit] = sorted_fps[pos[hit]] == keys[hit]
    odd = hit[~known[hit]]  # a high half shared with another fingerprint: the whole search
    if len(odd):
        at = np.searchsorted(sorted_fps, keys[odd])
        at_in = at < len(sorted_fps)
        known[odd[at_in]] = sorted_fps[at[at_in]] == keys[odd[at_in]]
    return known


def _positions(sorted_fps: Any, sorted_hi: Any, add: Any) -> Any:
    """``np.searchsorted(sorted_fps, add)`` for fingerprints ``add`` (sorted) absent from the array,
    on the high halves where they differ from the array's there."""
    import numpy as np

    add_hi = high(add)
    pos = np.searchsorted(sorted_hi, add_hi)
    inside = np.flatnonzero(pos < len(sorted_hi))
    tie = inside[sorted_hi[pos[inside]] == add_hi[inside]]
    if len(tie):
        pos[tie] = np.searchsorted(sorted_fps, add[tie])
    return pos


def merge(ctx: Context, visited: bytes, blocks: list[tuple[bytes, bytes, bytes, bytes]], always: frozenset[str],
          sometimes: frozenset[str], runs: bytes = b"", full: bool = True, clk: Any = clock.OFF
          ) -> tuple[bytes, tuple[bytes, bytes, bytes], list[Any], dict[str, Any]]:
    """One partition's merge: (the visited set with the new fingerprints, the new states' parent
    records (fingerprints sorted, parents, actions), their packed states in that order, the report).
    The visited set is ``visited`` (sorted) and ``runs`` (the fingerprints of the small levels
    since, unsorted); ``full``: merge both and the new fingerprints into one sorted array (else the
    visited set returned is ``visited`` as it was: the caller keeps the new ones as a run).
    ``visited`` may also be an ``S16`` array (a kept file, memory-mapped: ``resident``); the visited
    set returned is then an ``S16`` array too (written to the next kept file as it is: no copy into
    bytes)."""
    import numpy as np

    rep = new_report()
    seen = visited if isinstance(visited, np.ndarray) else np.frombuffer(visited, dtype="S16")
    ran = np.sort(np.frombuffer(runs, dtype="S16"))
    walk = full and fast.COMPILED  # a full level meets the visited set in one C walk (``fast.fresh``)
    # a small level's few candidates are searched without the high halves, the C walk needs none
    seen_hi = high(seen) if full and not walk else None
    as_bytes = not isinstance(visited, np.ndarray)
    if not blocks:
        if full and len(ran):
            visited = _joined(_inserted(seen, seen_hi, ran), as_bytes)
        return visited, (b"", b"", b""), [], rep
    fps = np.frombuffer(b"".join(b[0] for b in blocks), dtype="S16")
    parents = np.frombuffer(b"".join(b[1] for b in blocks), dtype="S16")
    actions = np.frombuffer(b"".join(b[2] for b in blocks), dtype="<u4")
    clk.mark("merge: join candidates")
    if walk:
        # the same candidates as below: sorted by (fingerprint, parent, action), the first of each
        # fingerprint kept, those the visited set holds dropped, walking both in order
        new_index = fast.fresh(fps, parents, actions, seen)
        if len(ran):
            new_index = new_index[~_member(ran, fps[new_index])]
        new_fps = fps[new_index]
    else:
        # sorted by fingerprint, then parent, then action: the first of each fingerprint is its best parent
        order, ordered = best_first(fps, parents, actions)
        first = np.ones(len(ordered), dtype=bool)
        first[1:] = ordered[1:] != ordered[:-1]
        unique, index = ordered[first], order[first]
        known = _member(seen, unique, seen_hi)
        if len(ran):
            known |= _member(ran, unique)
        fresh = ~known
        new_fps, new_index = unique[fresh], index[fresh]
    clk.mark("merge: sort, dedup, membership")
    if full:
        add = np.sort(np.concatenate([ran, new_fps])) if len(ran) else new_fps  # disjoint, both new to seen
        if len(add):
            visited = _joined(_inserted(seen, seen_hi, add), as_bytes)
    clk.mark("merge: new array")
    fps_bytes = new_fps.tobytes()
    new_states = _states_of(blocks, new_index)
    rep["new"] = len(new_states)
    clk.mark("merge: new states")
    check_new(ctx, fps_bytes, new_states, always, sometimes, rep)
    clk.mark("merge: properties")
    return visited, (fps_bytes, parents[new_index].tobytes(), actions[new_index].tobytes()), new_states, rep


def _inserted(seen: Any, seen_hi: Any, add: Any) -> Any:
    """The sorted ``S16`` array ``seen`` with ``add`` (sorted, none of them in ``seen``) merged in:
    one sequential C pass where the extension is built, else ``np.insert`` at the positions the
    high halves give (``seen_hi``: ``high(seen)``, or None)."""
    import numpy as np

    if fast.COMPILED:
        return fast.insert(seen, add)
    return np.insert(seen, _positions(seen, high(seen) if seen_hi is None else seen_hi, add), add)


class BadBlock(ValueError):
    """A candidates' block of states that does not decode (a damaged candidates file: ``candfiles``)."""


def _states_of(blocks: list[tuple[bytes, bytes, bytes, bytes]], index: Any) -> list[Any]:
    """The states of the candidates at ``index`` (positions over ``blocks``, in that order). In C
    only those are decoded from the marshal bytes (``fast.pick``: about one candidate in three is
    new at the widest levels); else every block is decoded whole and the list gathered. BadBlock
    where the bytes are not a block of states (marshal's own errors, or fewer states than asked)."""
    try:
        if fast.COMPILED:
            picked = fast.pick([b[3] for b in blocks], index)
            if picked is not None:
                return picked
        states = [s for b in blocks for s in decode_states(b[3])]
        return [states[i] for i in index.tolist()]
    except (ValueError, EOFError, TypeError, IndexError) as exc:
        raise BadBlock(f"a block of states does not decode: {exc}") from exc


def _joined(array: Any, as_bytes: bool) -> Any:
    """The merged visited array as the caller gave it: bytes (Spark's records) or the ``S16`` array."""
    return array.tobytes() if as_bytes else array
