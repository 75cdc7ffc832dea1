"""The map side of a distributed level in C: ``expand`` and ``split`` of ``steps`` without a Python
loop per state, for the common case.

An expansion task's work per successor is the model's (unpack, successors, pack, all compiled for
the classic model) plus the engine's: keep the best parent per packed state, fingerprint what is
left, split it by destination partition. In Python that second half cost more than the model
(bench/bench_spark_parts.py, docs/spark.md "Issue 24, third round"); ``_blocks.c`` runs the whole
loop in C, as the parallel engine's workers do theirs (``search/parallel/_route.c``), calling the
model's functions and computing the same BLAKE2b-128 fingerprints byte for byte, so runs,
checkpoints and traces are the same with or without it.

``best`` is the merge's order of the candidates (``steps.best_first``: a radix sort of their
fingerprints' high halves, then the few candidates of each repeated fingerprint in place), and
``first`` evaluates a level's ``always`` and ``sometimes`` properties on its new states in one C
loop (``steps.check_new``); both wherever the extension is built, for any model. A full level's
merge meets the visited set in one sequential walk (``fresh``, ``insert``: no binary search per
candidate, no ``np.insert``) and decodes only its new states from the candidates' marshal blocks
(``pick``); the NumPy path (``steps``) stays the reference, and tests/explorer/search/spark/
test_merge_walk.py holds them equal (docs/spark.md, "Issue 24, eighth round").

The map side applies where ``steps.expand`` has nothing to do per successor but pack and
compare: the model packs (``Context.packs``), no symmetry (the identity is the packed state), no
``within_bounds`` and no transition property left to check. Anything else, a build without the
extension, and ``ISRCHECK_PURE_PYTHON=1`` take ``steps.expand`` and ``steps.split``.
"""

from __future__ import annotations

import os
from typing import Any

from isrcheck.explorer.search.audit import audit_successors
from isrcheck.explorer.search.spark.blocks import FP, encode_states
from isrcheck.explorer.search.spark.level import Context, new_report


def _compiled() -> Any:
    if os.environ.get("ISRCHECK_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        import isrcheck.explorer.search.spark._blocks as compiled
    except ImportError:
        return None
    return compiled


_MODULE = _compiled()
COMPILED = _MODULE is not None


def applies(ctx: Context, transition: frozenset[str]) -> bool:
    """Whether a task with this context and these pending transition properties takes the C path."""
    return (_MODULE is not None and ctx.packs and ctx.ident_of is None and not ctx.bounded
            and not any(p.name in transition for p in ctx.props.transition))


class Candidates:
    """A task's candidates as ``_blocks.expand`` keeps them: {packed state: slot}, and per slot the
    packed state, its best parent's fingerprint (16 bytes) and its action index (uint32)."""

    def __init__(self) -> None:
        self.table: dict[Any, int] = {}
        self.keys: list[Any] = []
        self.parents = bytearray()
        self.actions = bytearray()


def expand(ctx: Context, fps: bytes, packed: list[Any], cands: Candidates, audit: int = 0) -> dict[str, Any]:
    """``steps.expand`` of one block (fingerprints ``fps``, packed states ``packed``) into ``cands``;
    the block's report. The first ``audit`` states are checked against the model contract first."""
    for p in packed[:audit]:
        audit_successors(ctx.model, ctx.unpack(p))
    empty: list[int] = []
    generated, expanded = _MODULE.expand(fps, packed, ctx.unpack, ctx.model.successors, ctx.pack, cands.table,
                                         cands.keys, cands.parents, cands.actions, empty)
    rep = new_report()
    rep["generated"], rep["expanded"] = generated, expanded
    if ctx.check_deadlock and empty:
        rep["deadlock"] = min(int.from_bytes(fps[i * FP:(i + 1) * FP], "big") for i in empty)
    return rep


def split(ctx: Context, cands: Candidates, partitions: int) -> dict[int, tuple[bytes, bytes, bytes, bytes]]:
    """``steps.split`` of the C candidates: one (fingerprints, parents, actions, states' block) per
    destination partition."""
    out = _MODULE.split(cands.keys, cands.parents, cands.actions, partitions, ctx.key_of_ident)
    return {j: (fps, parents, actions, encode_states(keys)) for j, (fps, parents, actions, keys) in out.items()}


def first(ctx: Context, packed: list[Any], inv: list[Any], wit: list[Any]) -> list[int]:
    """For each property of ``inv`` (``always``) then ``wit`` (``sometimes``), the first position
    in ``packed`` where the invariant fails or the witness holds, or -1: every predicate is
    evaluated on every state, as ``steps.check_new`` does in Python."""
    return _MODULE.first(packed, ctx.unpack, [p.predicate for p in inv + wit], [True] * len(inv) + [False] * len(wit))


def best(fps: Any, parents: Any, actions: Any) -> Any:
    """``steps.best_first``'s order of candidates (``S16`` fingerprints and parents, ``uint32``
    actions): by fingerprint, parent, action index, then position; an ``int64`` array."""
    import numpy as np

    return np.frombuffer(_MODULE.best(np.ascontiguousarray(fps), np.ascontiguousarray(parents),
                                      np.ascontiguousarray(actions, dtype="<u4")), dtype=np.int64).copy()


def fresh(fps: Any, parents: Any, actions: Any, seen: Any) -> Any:
    """The merge of a full level in one walk (``steps.merge``): the positions (``int64``) of each
    fingerprint's best candidate (``best``'s first) where the sorted visited array ``seen`` lacks
    the fingerprint, in fingerprint order. ``seen`` is read once, in order, not searched per
    candidate."""
    import numpy as np

    return np.frombuffer(_MODULE.fresh(np.ascontiguousarray(fps), np.ascontiguousarray(parents),
                                       np.ascontiguousarray(actions, dtype="<u4"), np.ascontiguousarray(seen)),
                         dtype=np.int64)


def insert(seen: Any, add: Any) -> Any:
    """The sorted ``S16`` arrays ``seen`` and ``add`` (disjoint) merged into a new one: what
    ``np.insert`` at ``searchsorted`` positions gives, in one sequential pass."""
    import numpy as np

    out = np.empty(len(seen) + len(add), dtype="S16")
    _MODULE.insert(np.ascontiguousarray(seen), np.ascontiguousarray(add), out)
    return out


def pick(states: list[bytes], index: Any) -> list[Any] | None:
    """The states of the candidates at positions ``index`` (``int64``, over the concatenated
    ``encode_states`` blocks ``states``), decoded alone from the marshal bytes: the others never
    become Python objects. None where a block is pickled or holds a value marshal writes with a
    code this does not walk: the caller decodes the blocks whole."""
    import numpy as np

    return _MODULE.pick(states, np.ascontiguousarray(index, dtype=np.int64))
