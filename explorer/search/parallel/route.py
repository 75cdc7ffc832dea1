"""Routing one state's successors to the shards that own them: the inner loop of a worker's expand.

For each successor ``(action, state)`` in the model's order: its key is ``pack(state)`` (the state
itself without ``pack``); a key this worker routed lately (``sent``) or that it owns and has visited
(``visited``) is dropped; any other is added to ``sent`` and appended to ``keys[d]``, with its
discovery key ``base | index`` appended to ``wheres[d]``, where ``d = hash(key) % spread % workers``
is its owner (``isrcheck.explorer.search.parallel.shard``).

The owner's side, ``settle_compiled``, and the whole expand loop around ``route`` for the common
case, ``expand_compiled``, are here too. Both run on every routed successor, so they
are compiled where the C extension ``_route`` is built (``setup.py``, optional like the model's
own; docs/performance.md has what they saved). ``route_python`` is the same loop in Python, used
when the extension is missing or ``out`` is not a list of pairs, and ``Shard.settle_keys`` keeps
its Python settle; ``ISRCHECK_PURE_PYTHON=1`` keeps both, as it keeps the model's Python code.
"""

from __future__ import annotations

import os
from array import array
from typing import Any


def route_python(out: Any, base: int, pack: Any, sent: set, visited: Any, workers: int, spread: int,
                 keys: list[list[Any]], wheres: list[list[int]]) -> bool:
    """The routing loop in Python (the module docstring says what it does)."""
    fresh = [(idx, k) for idx, (_, t) in enumerate(out)
             if (k := pack(t) if pack is not None else t) not in sent and k not in visited]
    for idx, k in fresh:
        if k in sent:  # twice among one state's successors
            continue
        sent.add(k)
        d = hash(k) % spread % workers
        keys[d].append(k)
        wheres[d].append(base | idx)
    return True


def _compiled() -> Any:
    if os.environ.get("ISRCHECK_PURE_PYTHON") == "1":
        return None
    try:  # the submodule by its full name: its package is still being initialised when this runs
        import isrcheck.explorer.search.parallel._route as compiled
    except ImportError:
        return None
    return compiled


_MODULE = _compiled()
_COMPILED = _MODULE.route if _MODULE is not None else None
COMPILED = _MODULE is not None


def expand_compiled(items: list[Any], numbers: bytes, unpack: Any, successors: Any, pack: Any, sent: set,
                    visited: Any, workers: int, spread: int, keys: list[list[Any]], wheres: list[list[int]],
                    index_bits: int, most: int) -> tuple[list[int], int, int] | None:
    """A worker's whole expand loop in C, for the common case (``Shard.expand``: exact store, a
    ``pack``, no symmetry, bounds, transition property or contract audit left): each item
    unpacked, expanded and its successors routed (``route``) with base ``number << index_bits``.
    Returns (successor counts, the first number without successors or -1, the position it stopped
    at: a state with more than ``most`` successors, or successors that are not pairs, is left to
    the caller with the rest), or None where the extension is not built."""
    if _MODULE is None:
        return None
    return _MODULE.expand(items, numbers, unpack, successors, pack, sent, visited, workers, spread, keys, wheres,
                          index_bits, most)


def settle_compiled(keys: list[list[Any]], wheres: list[bytes], visited: set) -> tuple[list[Any], array] | None:
    """A shard's settle in C, or None (not compiled, or keys of another shape: the caller's Python
    code runs then). ``keys``: each source's routed keys; ``wheres``: their discovery keys, the
    bytes of an ``array('Q')``. In ascending discovery-key order each key not in ``visited`` joins
    it and the frontier, so each new state keeps its smallest discovery key: the level's new
    states owned here, in one-process discovery order, and their discovery keys."""
    if _MODULE is None:
        return None
    done = _MODULE.settle(keys, wheres, visited)
    if done is None:
        return None
    frontier, raw = done
    discovered = array("Q")
    discovered.frombytes(raw)
    return frontier, discovered


def route(out: Any, base: int, pack: Any, sent: set, visited: Any, workers: int, spread: int,
          keys: list[list[Any]], wheres: list[list[int]]) -> None:
    """Route ``out`` (the module docstring says how)."""
    if _COMPILED is None or not _COMPILED(out, base, pack, sent, visited, workers, spread, keys, wheres):
        route_python(out, base, pack, sent, visited, workers, spread, keys, wheres)
