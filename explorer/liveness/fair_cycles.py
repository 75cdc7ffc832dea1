"""The fair-cycle search: does a fair behaviour keep a goal false forever, and the shortest lasso
that shows one.

Works on ``isrcheck.explorer.liveness.graph_store.StateGraph`` with networkx, model-free (ids and family codes only),
so it is tested directly against a brute-force search on small random graphs.

The question for ``P ~> Q`` (``<>Q`` is the case where P holds exactly at the initial states):
is there a state t where P and not Q hold, and a fair infinite path from t on which Q never holds?
Steps:

1. The candidate graph H: the *done* states (every successor known) where Q is false, with the
   edges between them; each edge carries the set of families of the actions along it. Each state's
   *enabled* families come from all its edges, also those leaving H (an action that leads to a
   Q state is still enabled).
2. Keep the part of H reachable from the trigger states t.
3. Fair components (networkx strongly connected components, then the standard refinement).
   Every state may stutter, so a single state is a cycle too. A component C is fair when
   - every weakly fair family is taken on an edge inside C or disabled in some state of C
     (otherwise no cycle inside C is fair: drop C);
   - every strongly fair family is taken inside C or disabled in every state of C. Otherwise,
     remove the states where such a family is enabled, recompute the components of the rest and
     check them again (Emerson-Lei / Streett refinement).
   A fair component has a fair cycle: one closed walk through all its states and edges is fair.
4. The shortest prefix: a breadth-first search backwards from the fair states inside H gives each
   state's distance to them; a lasso's prefix is the engine's shortest path to a trigger t plus
   t's shortest path in H to a fair state, minimised over t.
5. The cycle: from the entry state, stutter if that is fair; else add detours inside the component
   until the closed walk is fair (take the family a gap names, or visit a state where a weak
   family is disabled); at most one detour per family.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import networkx as nx
from isrcheck.explorer.liveness.graph_store import StateGraph

WEAK, STRONG = "weak", "strong"


@dataclass(frozen=True)
class Lasso:
    """A fair behaviour as graph ids: ``prefix`` from an initial state to the cycle's entry
    (inclusive), ``prefix_families[i]`` the family code of the step into ``prefix[i]`` (None when
    any action leading there will do), and ``cycle``: (family code, id) steps from the entry back
    to it; empty when the entry stutters forever."""

    prefix: tuple[int, ...]
    prefix_families: tuple[int | None, ...]
    cycle: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class FairnessMasks:
    """Family-code bit masks of the weakly and strongly fair families of one graph."""

    weak: int
    strong: int

    @classmethod
    def of(cls, graph: StateGraph, fairness: dict[str, str]) -> FairnessMasks:
        weak = strong = 0
        for family, kind in fairness.items():
            code = graph.family_code(family)
            if code is None:
                continue  # a family never enabled anywhere constrains nothing
            if kind == STRONG:
                strong |= 1 << code
            else:
                weak |= 1 << code
        return cls(weak, strong)


def candidate_graph(graph: StateGraph, keep: Callable[[int], bool]) -> tuple[nx.DiGraph, dict[int, int]]:
    """H (done states where ``keep`` holds, edges labelled ``fams``: a family bit mask) and the
    enabled-family mask of each of its states."""
    h = nx.DiGraph()
    done = graph.done
    nodes = [i for i in range(len(graph)) if done[i] and keep(i)]
    h.add_nodes_from(nodes)
    enabled = dict.fromkeys(nodes, 0)
    succ = h._succ  # direct adjacency access: one dict probe per edge instead of a method call
    for u, v, f in zip(graph.src, graph.dst, graph.fam, strict=True):
        if u in enabled:
            bit = 1 << f
            enabled[u] |= bit
            if v in enabled:
                data = succ[u].get(v)
                if data is None:
                    h.add_edge(u, v, fams=bit)
                else:
                    data["fams"] |= bit
    return h, enabled


def reachable(h: nx.DiGraph, sources: Iterable[int]) -> set[int]:
    seen = {s for s in sources if s in h}
    queue = deque(seen)
    succ = h._succ
    while queue:
        u = queue.popleft()
        for v in succ[u]:
            if v not in seen:
                seen.add(v)
                queue.append(v)
    return seen


def fair_parts(h: nx.DiGraph, nodes: set[int], enabled: dict[int, int], fair: FairnessMasks) -> list[frozenset[int]]:
    """The fair components of ``h`` restricted to ``nodes`` (see the module docstring, step 3)."""
    out: list[frozenset[int]] = []
    stack = [nodes]
    while stack:
        part = stack.pop()
        sub = h.subgraph(part)
        for scc in nx.strongly_connected_components(sub):
            taken = 0
            en_any, en_all = 0, -1
            for u in scc:
                e = enabled[u]
                en_any |= e
                en_all &= e
                for v, data in sub._succ[u].items():
                    if v in scc:
                        taken |= data["fams"]
            if fair.weak & en_all & ~taken:
                continue  # a weakly fair family is enabled throughout and never taken: no fair cycle
            bad = fair.strong & en_any & ~taken
            if bad:
                rest = {u for u in scc if not enabled[u] & bad}
                if rest:
                    stack.append(rest)
                continue
            out.append(frozenset(scc))
    return out


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _distances(h: nx.DiGraph, targets: set[int], within: set[int]) -> tuple[dict[int, int], dict[int, tuple[int, int]]]:
    """Distance from each state of ``within`` to ``targets`` inside H, and the next hop (id, fams)."""
    dist = dict.fromkeys(sorted(targets), 0)
    hop: dict[int, tuple[int, int]] = {}
    queue = deque(dist)
    pred = h._pred
    while queue:
        v = queue.popleft()
        for u, data in pred[v].items():
            if u in within and u not in dist:
                dist[u] = dist[v] + 1
                hop[u] = (v, data["fams"])
                queue.append(u)
    return dist, hop


def _cycle(h: nx.DiGraph, part: frozenset[int], entry: int, enabled: dict[int, int],
           fair: FairnessMasks) -> tuple[tuple[int, int], ...]:
    """A fair closed walk from ``entry`` inside ``part`` (step 5)."""
    sub = h.subgraph(part)
    inside_taken = 0
    for u in part:
        for data in sub._succ[u].values():
            inside_taken |= data["fams"]
    walk: list[tuple[int, int]] = []  # (family, id) steps from entry

    def end() -> int:
        return walk[-1][1] if walk else entry

    def closed() -> list[tuple[int, int]]:
        if not walk or end() == entry:
            return list(walk)
        path = nx.shortest_path(sub, end(), entry)
        back = [(_lowest(sub._succ[a][b]["fams"]), b) for a, b in zip(path, path[1:], strict=False)]
        return walk + back

    for _ in range(2 * (fair.weak | fair.strong).bit_length() + 2):
        steps = closed()
        nodes = [entry] + [v for _, v in steps]
        taken = 0
        for f, _ in steps:
            taken |= 1 << f
        en_any, en_all = 0, -1
        for u in nodes:
            en_any |= enabled[u]
            en_all &= enabled[u]
        gap = (fair.weak & en_all & ~taken) | (fair.strong & en_any & ~taken)
        if not gap:
            return tuple(steps)
        f = _lowest(gap)
        bit = 1 << f
        paths = nx.single_source_shortest_path(sub, end())
        if inside_taken & bit:
            # nearest state with an f edge inside the part, then that edge
            u, path = next((u, p) for u, p in paths.items()
                           if any(d["fams"] & bit for d in sub._succ[u].values()))
            v = next(v for v, d in sub._succ[u].items() if d["fams"] & bit)
            walk += [(_lowest(sub._succ[a][b]["fams"]), b) for a, b in zip(path, path[1:], strict=False)]
            walk.append((f, v))
        else:  # a weak family disabled somewhere in the part: go there
            path = next(p for w, p in paths.items() if not enabled[w] & bit)
            walk += [(_lowest(sub._succ[a][b]["fams"]), b) for a, b in zip(path, path[1:], strict=False)]
    raise AssertionError("fair cycle construction did not converge; the component was not fair")


def find_lasso(graph: StateGraph, fair: FairnessMasks, *, goal: Callable[[int], bool],
               trigger: Callable[[int], bool] | None = None) -> tuple[Lasso | None, dict[str, int]]:
    """A shortest-prefix fair lasso on which ``goal`` never holds from a trigger state on, or None.

    ``trigger`` None: the initial states (``<>goal``). Also returns figures about the search
    (candidate states, fair states) for the run's statistics."""
    h, enabled = candidate_graph(graph, lambda i: not goal(i))
    if trigger is None:
        starts = [i for i in graph.inits if i in enabled]
    else:
        starts = [i for i in enabled if trigger(i)]
    within = reachable(h, starts)
    parts = fair_parts(h, within, enabled, fair)
    part_of = {u: p for p in parts for u in p}
    stats = {"candidate_states": h.number_of_nodes(), "fair_states": len(part_of)}
    if not part_of:
        return None, stats
    dist, hop = _distances(h, set(part_of), within)
    best = min((graph.depth[t] + dist[t], t) for t in starts if t in dist)
    t = best[1]
    prefix = graph.path_to(t)
    families: list[int | None] = [None] * len(prefix)
    node = t
    while node not in part_of:
        node, fams = hop[node]
        prefix.append(node)
        families.append(_lowest(fams))
    cycle = _cycle(h, part_of[node], node, enabled, fair)
    return Lasso(tuple(prefix), tuple(families), cycle), stats


def is_fair_lasso(graph: StateGraph, fair: FairnessMasks, lasso: Lasso) -> bool:
    """Whether ``lasso`` is a path of the graph whose cycle is fair (for tests and replays)."""
    edges: dict[tuple[int, int], int] = {}
    enabled: dict[int, int] = {}
    for u, v, f in zip(graph.src, graph.dst, graph.fam, strict=True):
        edges[(u, v)] = edges.get((u, v), 0) | 1 << f
        enabled[u] = enabled.get(u, 0) | 1 << f
    p = lasso.prefix
    if p[0] not in graph.inits:
        return False
    for a, b, f in zip(p, p[1:], lasso.prefix_families[1:], strict=False):
        if (a, b) not in edges or (f is not None and not edges[(a, b)] >> f & 1):
            return False
    nodes, taken, here = [p[-1]], 0, p[-1]
    for f, v in lasso.cycle:
        if not edges.get((here, v), 0) >> f & 1:
            return False
        taken |= 1 << f
        nodes.append(v)
        here = v
    if here != p[-1] or not all(graph.done[u] for u in nodes):
        return False
    en_all, en_any = -1, 0
    for u in nodes:
        en_all &= enabled.get(u, 0)
        en_any |= enabled.get(u, 0)
    return not (fair.weak & en_all & ~taken) and not (fair.strong & en_any & ~taken)
