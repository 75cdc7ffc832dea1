"""The explored state graph, kept compactly for liveness checking and ``--graph``.

Recorded by the local engine only when a run asks for a liveness property or for the graph, so
safety runs pay nothing. Each state gets an integer id in discovery order (breadth-first, so an
id's ``parent`` and ``depth`` give a shortest path to it); edges are three parallel integer arrays
(source id, target id, action-family code), about 20 bytes an edge. A state's labels (one bit per
predicate a liveness property needs) are evaluated when the state is expanded, so the store never
keeps states themselves, only the visited-set keys the engine already has.

A state is ``done`` once all its successors were recorded. Only done states can lie on a lasso:
a state cut by ``max_depth``, outside the model's bounds, or left half-expanded when a run stopped
at a violation has unknown successors, so nothing is concluded about behaviours through it.

What is not kept: actions themselves (a lasso's actions are recomputed from the model, like
``isrcheck.explorer.search.rebuild`` does for safety traces), and duplicate edges are kept as they come (two
actions of one family between the same states are one networkx edge later).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any


class StateGraph:
    """Integer ids, labelled edges and per-state label bits of one run."""

    def __init__(self, family_of: Callable[[Any], str], labels: Sequence[Callable[[Any], bool]] = ()):
        if len(labels) > 62:
            raise ValueError("at most 62 state predicates can label a graph")
        self.family_of = family_of
        self.labels = tuple(labels)
        self.ids: dict[Any, int] = {}
        self.keys: list[Any] = []
        self.parent = array("q")
        self.depth = array("l")
        self.bits = array("Q")
        self.done = bytearray()
        self.src = array("q")
        self.dst = array("q")
        self.fam = array("l")
        self.families: list[str] = []
        self._family_code: dict[str, int] = {}
        self.inits: list[int] = []

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def edge_count(self) -> int:
        return len(self.src)

    def _new(self, key: Any, parent: int, depth: int) -> int:
        gid = len(self.keys)
        self.ids[key] = gid
        self.keys.append(key)
        self.parent.append(parent)
        self.depth.append(depth)
        self.bits.append(0)
        self.done.append(0)
        return gid

    def initial(self, key: Any) -> None:
        """An initial state (depth 0 here; the engine counts it as depth 1)."""
        if key not in self.ids:
            self.inits.append(self._new(key, -1, 0))

    def expand(self, key: Any, state: Any) -> int:
        """A state about to be expanded: label it and return its id for ``edge``."""
        gid = self.ids.get(key)
        if gid is None:  # cannot happen for a state the engine reached, kept for robustness
            gid = self._new(key, -1, 0)
        bits = 0
        for i, pred in enumerate(self.labels):
            if pred(state):
                bits |= 1 << i
        self.bits[gid] = bits
        return gid

    def edge(self, gid: int, succ_key: Any, action: Any) -> None:
        """A successor of ``gid`` (in the model's order), new or seen before."""
        to = self.ids.get(succ_key)
        if to is None:
            to = self._new(succ_key, gid, self.depth[gid] + 1)
        family = self.family_of(action)
        code = self._family_code.get(family)
        if code is None:
            code = self._family_code[family] = len(self.families)
            self.families.append(family)
        self.src.append(gid)
        self.dst.append(to)
        self.fam.append(code)

    def add_node(self, key: Any, parent: int, depth: int) -> int:
        """A state numbered elsewhere (the parallel engine fills the graph level by level, in
        number order): its key, the id that discovered it, its depth (initial states 0)."""
        return self._new(key, parent, depth)

    def add_edge(self, src: int, dst: int, family: str) -> None:
        """An edge between two ids, appended in one process's edge order (source, successor index)."""
        code = self._family_code.get(family)
        if code is None:
            code = self._family_code[family] = len(self.families)
            self.families.append(family)
        self.src.append(src)
        self.dst.append(dst)
        self.fam.append(code)

    def finish(self, gid: int) -> None:
        """Every successor of ``gid`` is recorded: its enabled families are known."""
        self.done[gid] = 1

    def family_code(self, family: str) -> int | None:
        return self._family_code.get(family)

    def path_to(self, gid: int) -> list[int]:
        """Ids along a shortest path from an initial state to ``gid``."""
        path = [gid]
        while self.parent[path[-1]] >= 0:
            path.append(self.parent[path[-1]])
        path.reverse()
        return path

    def nbytes(self) -> int:
        """Bytes held by the arrays (the id dict and key list come on top: see docs/liveness.md)."""
        arrays = (self.parent, self.depth, self.bits, self.src, self.dst, self.fam)
        return sum(a.itemsize * len(a) for a in arrays) + len(self.done)
