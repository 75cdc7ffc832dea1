"""Symmetry over replica identities: every replica runs the same code, so relabelling replicas
maps reachable states to reachable states, successors to successors, and preserves every property
in ``properties`` (they quantify over all replicas). The representative of a state is the
lexicographically least relabelling over the permutations that are symmetries (all ``n!``, or
with racks those that map zones onto zones). TLC's ``SYMMETRY Permutations(Replicas)`` reduces the
same orbits but may pick other representatives and, with a violation, stop at another point, so
only complete reduced counts are comparable.

How each field is relabelled is its row's symmetry role in ``isrcheck.model.encoding.fields``: records and
offsets do not name replicas; leaders, ISRs, stopped-broker masks and the leader/ISR of every
LeaderAndIsr request do, and per-replica blocks and slots move with their replica.

One relabelling function per permutation is generated once (a single tuple display per call),
because ``canonical`` runs on every generated state when symmetry is on.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations
from typing import Any

from .fields import GLOBAL_FIELDS, PER_REPLICA, REPLICA, REPLICA_FIELDS, REPLICA_SET, REQUESTS


def _expression(role: str, i: int) -> str:
    """Source of slot ``i`` relabelled by its role (``L`` leaders, ``M`` masks, ``R`` requests)."""
    if role == REPLICA:
        return f"L[s[{i}] + 1]"  # indexed by leader + 1 so that None (-1) maps to itself
    if role == REPLICA_SET:
        return f"M[s[{i}]]"
    if role == REQUESTS:
        return f"tuple([R[c] for c in s[{i}]])"
    return f"s[{i}]"


def _relabeller(tables: Any, perm: tuple[int, ...]) -> Callable[[tuple], tuple]:
    """The function mapping a state to its relabelling under ``perm`` (``perm[old] = new``)."""
    layout = tables.layout
    n = layout.n
    inverse = [0] * n
    for old, new in enumerate(perm):
        inverse[new] = old
    leader_map = (-1, *perm)
    mask_map = tuple(sum(1 << perm[old] for old in range(n) if mask >> old & 1) for mask in range(1 << n))
    request_map = tuple(
        layout.request(leader_map[layout.request_leader(code) + 1], mask_map[layout.request_isr(code)])
        for code in range(layout.request_codes)
    )
    exprs = []
    for new in range(n):  # the block of replica ``new`` is the old block of ``inverse[new]``
        b = layout.base[inverse[new]]
        exprs += [_expression(f.symmetry, b + k) for k, f in enumerate(REPLICA_FIELDS)]
    exprs += [_expression(f.symmetry, layout.g + k) for k, f in enumerate(GLOBAL_FIELDS)]
    fields = tables.fields
    for f, i in fields.rows:
        if f.symmetry == PER_REPLICA:
            exprs += [f"s[{i + inverse[new]}]" for new in range(n)]
        else:
            exprs += [_expression(f.symmetry, i + k) for k in range(fields.width(f))]
    source = f"def relabel(s, L=L, M=M, R=R):\n    return ({', '.join(exprs)},)\n"
    namespace = {"L": leader_map, "M": mask_map, "R": request_map}
    exec(source, namespace)  # source built from integers only
    return namespace["relabel"]


class Symmetry:
    def __init__(self, tables: Any, perms=None) -> None:
        """``perms``: the relabellings that are symmetries (identity first); default all ``n!``."""
        n = tables.layout.n
        perms = list(permutations(range(n))) if perms is None else list(perms)
        self._relabellers = tuple(_relabeller(tables, p) for p in perms)
        self._others = self._relabellers[1:]  # perms[0] is the identity

    def canonical(self, state: tuple) -> tuple:
        best = state
        for relabel in self._others:
            candidate = relabel(state)
            if candidate < best:
                best = candidate
        return best

    def orbit(self, state: tuple) -> list[tuple]:
        """Every relabelling of ``state``, identity first (for tests)."""
        return [relabel(state) for relabel in self._relabellers]
