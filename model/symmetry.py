"""Symmetry over replica identities: every replica runs the same code, so relabelling replicas
maps reachable states to reachable states, successors to successors, and preserves every property
in ``properties`` (they quantify over all replicas). The representative of a state is the
lexicographically least relabelling over all ``n!`` permutations (TLC's SYMMETRY Permutations(Replicas)
reduces the same orbits, though it may pick other representatives, so reduced counts need not
match TLC's).

Records and offsets do not name replicas; leaders (cached and quorum), cached and quorum ISRs and
the leader/ISR of every LeaderAndIsr request do, and are relabelled.
"""

from __future__ import annotations

from itertools import permutations

from .state import FIELDS_PER_REPLICA, GLOBAL_FIELDS
from .tables import ModelTables


class Symmetry:
    def __init__(self, tables: ModelTables) -> None:
        layout = tables.layout
        n = layout.n
        self.n = n
        self.g = layout.g
        self._maps = []
        for perm in permutations(range(n)):  # perm[old] = new
            inverse = [0] * n
            for old, new in enumerate(perm):
                inverse[new] = old
            leader_map = {-1: -1, **{old: perm[old] for old in range(n)}}
            mask_map = tuple(
                sum(1 << perm[old] for old in range(n) if mask >> old & 1) for mask in range(1 << n)
            )
            request_map = tuple(
                layout.request(leader_map[layout.request_leader(code)], mask_map[layout.request_isr(code)])
                for code in range(layout.request_codes)
            )
            blocks = tuple(FIELDS_PER_REPLICA * inverse[new] for new in range(n))
            self._maps.append((tuple(perm[i] for i in range(n)), blocks, mask_map, request_map))
        assert GLOBAL_FIELDS == 4

    def relabel(self, state: tuple, perm_index: int) -> tuple:
        perm, blocks, mask_map, request_map = self._maps[perm_index]
        out: list = []
        for b in blocks:
            leader = state[b + 3]
            out += (
                state[b],
                state[b + 1],
                state[b + 2],
                perm[leader] if leader >= 0 else -1,
                mask_map[state[b + 4]],
            )
        g = self.g
        q_leader = state[g + 1]
        out += (
            state[g],
            perm[q_leader] if q_leader >= 0 else -1,
            mask_map[state[g + 2]],
            tuple(request_map[code] for code in state[g + 3]),
        )
        return tuple(out)

    def canonical(self, state: tuple) -> tuple:
        best = state
        for k in range(1, len(self._maps)):
            candidate = self.relabel(state, k)
            if candidate < best:
                best = candidate
        return best

    def orbit(self, state: tuple) -> list[tuple]:
        """Every relabelling of ``state`` (for tests)."""
        return [self.relabel(state, k) for k in range(len(self._maps))]
