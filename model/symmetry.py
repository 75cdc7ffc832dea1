"""Symmetry over replica identities: every replica runs the same code, so relabelling replicas
maps reachable states to reachable states, successors to successors, and preserves every property
in ``properties`` (they quantify over all replicas). The representative of a state is the
lexicographically least relabelling over all ``n!`` permutations. TLC's
``SYMMETRY Permutations(Replicas)`` reduces the same orbits but may pick other representatives
and, with a violation, stop at another point, so only complete reduced counts are comparable.

Records and offsets do not name replicas; leaders (cached and quorum), cached and quorum ISRs and
the leader/ISR of every LeaderAndIsr request do, and are relabelled.

One relabelling function per permutation is generated once (a single tuple display per call),
because ``canonical`` runs on every generated state when symmetry is on.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations

from .state import EPOCH, FIELDS_PER_REPLICA, HW, ISR, LEADER, NEXT_RECORD_ID, Q_ISR, Q_LEADER, REQUESTS
from .tables import ModelTables


def _relabeller(tables: ModelTables, perm: tuple[int, ...], extra=None) -> Callable[[tuple], tuple]:
    """The function mapping a state to its relabelling under ``perm`` (``perm[old] = new``).
    ``extra(inverse)``, when given, returns source expressions for fields appended after the
    classic layout (``model.durability``); they may use ``M`` (ISR-style masks)."""
    layout = tables.layout
    n, g = layout.n, layout.g
    inverse = [0] * n
    for old, new in enumerate(perm):
        inverse[new] = old
    # leader_map is indexed by leader + 1 so that None (-1) maps to itself.
    leader_map = (-1, *perm)
    mask_map = tuple(sum(1 << perm[old] for old in range(n) if mask >> old & 1) for mask in range(1 << n))
    request_map = tuple(
        layout.request(leader_map[layout.request_leader(code) + 1], mask_map[layout.request_isr(code)])
        for code in range(layout.request_codes)
    )
    fields = []
    for new in range(n):
        b = FIELDS_PER_REPLICA * inverse[new]
        fields += [
            f"s[{b}]",
            f"s[{b + HW}]",
            f"s[{b + EPOCH}]",
            f"L[s[{b + LEADER}] + 1]",
            f"M[s[{b + ISR}]]",
        ]
    fields += [
        f"s[{g + NEXT_RECORD_ID}]",
        f"L[s[{g + Q_LEADER}] + 1]",
        f"M[s[{g + Q_ISR}]]",
        f"tuple([R[c] for c in s[{g + REQUESTS}]])",
    ]
    if extra is not None:
        fields += extra(inverse)
    source = f"def relabel(s, L=L, M=M, R=R):\n    return ({', '.join(fields)})\n"
    namespace = {"L": leader_map, "M": mask_map, "R": request_map}
    exec(source, namespace)  # source built from integers only
    return namespace["relabel"]


class Symmetry:
    def __init__(self, tables: ModelTables, extra=None, perms=None) -> None:
        """``perms``: the relabellings that are symmetries (identity first); default all ``n!``."""
        n = tables.layout.n
        perms = list(permutations(range(n))) if perms is None else list(perms)
        self._relabellers = tuple(_relabeller(tables, p, extra) for p in perms)
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
