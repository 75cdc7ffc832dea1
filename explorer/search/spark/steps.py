"""The two steps of a BFS level on blocks of states, the same code in the driver and on executors.

``expand`` turns frontier states into candidate successors keyed by fingerprint (16 bytes),
deduplicated within the batch, checking transition properties and deadlocks on the way.
``merge`` takes every candidate block of one partition with that partition's visited set (a
sorted ``S16`` array) and keeps the candidates not seen before, checking ``always`` and
``sometimes`` properties on them; it works on whole arrays in NumPy, so its Python cost is per
new state (the property checks, the states' list), never per stored state. ``dedup`` is the
driver's version of ``merge`` on a Python set, for the first, small levels.

Every choice is made by a total order on fingerprints (``level`` explains why): the parent kept
for a new state is the smallest ``(parent fingerprint, action index)``, the state reported for a
property the smallest fingerprint.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Any

from isrcheck.explorer.search.audit import audit_successors
from isrcheck.explorer.search.spark.blocks import FP, NO_PARENT, decode_states, encode_states
from isrcheck.explorer.search.spark.level import Context, new_report


def initial_candidates(ctx: Context) -> tuple[dict[bytes, tuple], dict[str, Any]]:
    """Level 1's candidates: the initial states, parent ``NO_PARENT``, ordered by their index."""
    rep = new_report()
    cands: dict[bytes, tuple] = {}
    for index, state in enumerate(ctx.model.init_states()):
        rep["generated"] += 1
        key = ctx.key_of(state)
        if key not in cands:  # the first index is the smallest
            cands[key] = (NO_PARENT, index, ctx.pack(state))
    return cands, rep


def expand(ctx: Context, fps: Iterable[bytes], packed: Iterable[Any], transition: frozenset[str],
           cands: dict[bytes, tuple] | None = None, audit: int = 0) -> tuple[dict[bytes, tuple], dict[str, Any]]:
    """Successors of the states ``packed`` (fingerprints ``fps``) as {fingerprint: (parent,
    action index, packed state)}, keeping the smallest (parent, action index) per fingerprint; and
    the batch's report. ``transition`` names the transition properties still to check. The first
    ``audit`` states are expanded twice more and checked against the model contract."""
    model, unpack, pack, key_of, key_of_packed = ctx.model, ctx.unpack, ctx.pack, ctx.key_of, ctx.key_of_packed
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
            for prop in checks:
                if not prop.predicate(state, action, nxt):
                    step = (int.from_bytes(fp, "big"), aidx)
                    if prop.name not in found or step < found[prop.name]:
                        found[prop.name] = step
            q = pack(nxt)
            key = key_of_packed(q) if key_of_packed is not None else key_of(nxt)
            old = get(key)
            if old is None or fp < old[0] or (fp == old[0] and aidx < old[1]):
                cands[key] = (fp, aidx, q)
        generated += aidx + 1
        if deadlock and aidx < 0:
            fpi = int.from_bytes(fp, "big")
            if rep["deadlock"] is None or fpi < rep["deadlock"]:
                rep["deadlock"] = fpi
    rep["generated"], rep["expanded"] = generated, expanded
    return cands, rep


def split(cands: dict[bytes, tuple], partitions: int) -> dict[int, tuple[bytes, bytes, bytes, bytes]]:
    """Candidates as one block per destination partition: (fingerprints, parents, action indices
    as uint32, states' block)."""
    groups: dict[int, list] = {}
    for key, value in cands.items():
        groups.setdefault(int.from_bytes(key, "big") % partitions, []).append((key, value))
    return {j: block(items) for j, items in groups.items()}


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


def dedup(ctx: Context, seen: Any, cands: dict[bytes, tuple], always: frozenset[str],
          sometimes: frozenset[str]) -> tuple[dict[bytes, tuple], dict[str, Any]]:
    """The driver's merge: the candidates not in ``seen`` (a set of fingerprints), in fingerprint
    order, and the report of the properties on them. ``seen`` is not modified."""
    best = {fp: cands[fp] for fp in sorted(cands) if fp not in seen}
    rep = new_report()
    rep["new"] = len(best)
    check_new(ctx, b"".join(best), [v[2] for v in best.values()], always, sometimes, rep)
    return best, rep


def merge(ctx: Context, visited: bytes, blocks: list[tuple[bytes, bytes, bytes, bytes]], always: frozenset[str],
          sometimes: frozenset[str]) -> tuple[bytes, tuple[bytes, bytes, bytes], list[Any], dict[str, Any]]:
    """One partition's merge: (the visited set with the new fingerprints, the new states' parent
    records (fingerprints sorted, parents, actions), their packed states in that order, the report)."""
    import numpy as np

    rep = new_report()
    if not blocks:
        return visited, (b"", b"", b""), [], rep
    seen = np.frombuffer(visited, dtype="S16")
    fps = np.frombuffer(b"".join(b[0] for b in blocks), dtype="S16")
    parents = np.frombuffer(b"".join(b[1] for b in blocks), dtype="S16")
    actions = np.frombuffer(b"".join(b[2] for b in blocks), dtype="<u4")
    states = [s for b in blocks for s in decode_states(b[3])]
    # sorted by fingerprint, then parent, then action: the first of each fingerprint is its best parent
    order = np.lexsort((actions, parents, fps))
    ordered = fps[order]
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    unique, index = ordered[first], order[first]
    pos = np.searchsorted(seen, unique)
    known = np.zeros(len(unique), dtype=bool)
    inside = pos < len(seen)
    known[inside] = seen[pos[inside]] == unique[inside]
    fresh = ~known
    new_fps, new_index = unique[fresh], index[fresh]
    if len(new_fps):
        visited = np.insert(seen, pos[fresh], new_fps).tobytes()
    fps_bytes = new_fps.tobytes()
    new_states = [states[i] for i in new_index.tolist()]
    rep["new"] = len(new_states)
    check_new(ctx, fps_bytes, new_states, always, sometimes, rep)
    return visited, (fps_bytes, parents[new_index].tobytes(), actions[new_index].tobytes()), new_states, rep
