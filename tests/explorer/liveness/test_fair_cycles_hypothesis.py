"""The fair-cycle search against brute force on small random graphs (Hypothesis).

Brute force, independent of SCCs and refinement: a fair behaviour that keeps Q false forever
exists exactly when some non-empty set S of Q-false states, strongly connected through its own
edges (a single state counts: it may stutter), is fair when the cycle takes every edge inside S:
each weakly fair family is taken inside S or disabled in some state of S, each strongly fair one
is taken inside S or disabled in all of S. The shortest prefix is the least (breadth-first depth
of a trigger t) + (distance from t to such a set through Q-false states). Every lasso returned is
also checked to be a real, fair behaviour of the model on which the property fails.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from isrcheck import Property, check

FAMILIES = ("a", "b", "c")


class RandomGraph:
    def __init__(self, n, inits, edges, goal, trigger, fairness, leads_to):
        self.n, self.inits, self.edges = n, inits, edges
        self.goal, self.trigger, self._fairness, self.leads_to = goal, trigger, fairness, leads_to

    def init_states(self):
        return list(self.inits)

    def successors(self, s):
        return [(f"{f}({s}->{t})", t) for (u, t, f) in self.edges if u == s]

    def properties(self):
        if self.leads_to:
            return [Property.leads_to("P", lambda s: s in self.trigger, lambda s: s in self.goal)]
        return [Property.eventually("P", lambda s: s in self.goal)]

    def fairness(self):
        return dict(self._fairness)


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 6))
    nodes = list(range(n))
    # each ordered pair of states gets no edge (half the time) or edges of one or two families
    labels = st.sampled_from([(), (), (), (), ("a",), ("b",), ("c",), ("a", "b")])
    edges = [(u, v, f) for u in nodes for v in nodes for f in draw(labels)]
    inits = tuple(sorted(draw(st.sets(st.sampled_from(nodes), min_size=1, max_size=2))))
    goal = frozenset(draw(st.sets(st.sampled_from(nodes), max_size=2)))
    trigger = frozenset(draw(st.sets(st.sampled_from(nodes), max_size=n)))
    kinds = draw(st.lists(st.sampled_from(["none", "weak", "strong"]), min_size=3, max_size=3))
    fairness = {f: k for f, k in zip(FAMILIES, kinds, strict=True) if k != "none"}
    return RandomGraph(n, inits, edges, goal, trigger, fairness, draw(st.booleans()))


def _reach(sources, nodes, succ):
    seen = {s: 0 for s in sources if s in nodes}
    queue = deque(seen)
    while queue:
        u = queue.popleft()
        for v in succ[u]:
            if v in nodes and v not in seen:
                seen[v] = seen[u] + 1
                queue.append(v)
    return seen


def brute_force(m: RandomGraph):
    """(exists a violating fair lasso, the shortest prefix: states before the loop's first one)."""
    succ = {u: sorted({v for (a, v, _) in m.edges if a == u}) for u in range(m.n)}
    enabled = {u: {f for (a, _, f) in m.edges if a == u} for u in range(m.n)}
    depth = _reach(m.inits, set(range(m.n)), succ)  # breadth-first depth in the whole graph
    bad = {u for u in depth if u not in m.goal}
    starts = [u for u in depth if u in bad and (u in m.trigger if m.leads_to else u in m.inits)]
    within = set(_reach(starts, bad, succ))
    fair_states = set()
    for k in range(1, len(within) + 1):
        for subset in combinations(sorted(within), k):
            s = set(subset)
            if any(set(_reach([u], s, succ)) != s for u in s):
                continue  # not strongly connected through its own edges
            taken = {f for (a, b, f) in m.edges if a in s and b in s}
            fair = True
            for f, kind in m._fairness.items():
                if f in taken:
                    continue
                if kind == "weak" and all(f in enabled[u] for u in s):
                    fair = False
                if kind == "strong" and any(f in enabled[u] for u in s):
                    fair = False
            if fair:
                fair_states |= s
    best = None
    for t in starts:
        dist = _reach([t], within, succ)
        for f in fair_states:
            if f in dist:
                total = depth[t] + dist[f]
                best = total if best is None else min(best, total)
    return best is not None, best


def _lasso_is_real_and_fair(m: RandomGraph, trace) -> bool:
    states = trace.states
    for before, step in zip(states, trace.steps[1:], strict=False):
        if (step.action, step.state) not in m.successors(before):
            return False
    if trace.loop_action is None:
        assert trace.loop == len(states) - 1
        loop_states, taken = [states[-1]], set()
    else:
        if (trace.loop_action, states[trace.loop]) not in m.successors(states[-1]):
            return False
        loop_states = states[trace.loop:]
        taken = {a.split("(")[0] for a in [*trace.actions[trace.loop:], trace.loop_action]}
    enabled = [{a.split("(")[0] for a, _ in m.successors(s)} for s in loop_states]
    for f, kind in m._fairness.items():
        if f not in taken and kind == "weak" and all(f in e for e in enabled):
            return False
        if f not in taken and kind == "strong" and any(f in e for e in enabled):
            return False
    return not any(s in m.goal for s in loop_states)


# Shapes the search must get right, tried first: a two-state loop whose exit is strongly fair but
# enabled in one state only (refinement removes it: no violation), and the same exit weakly fair.
# Then a three-state loop where removing the state that enables the strong exit leaves a fair
# loop of two (a violation only the refinement finds).
SPIN = [(0, 1, "a"), (1, 0, "a"), (0, 2, "b")]
REFINE = [(0, 1, "a"), (1, 0, "a"), (1, 2, "a"), (2, 1, "a"), (0, 3, "b")]


@settings(max_examples=400)
@example(RandomGraph(3, (0,), SPIN, frozenset({2}), frozenset(), {"a": "weak", "b": "strong"}, False))
@example(RandomGraph(3, (0,), SPIN, frozenset({2}), frozenset(), {"a": "weak", "b": "weak"}, False))
@example(RandomGraph(3, (0,), SPIN, frozenset({2}), frozenset({1}), {"a": "strong"}, True))
@example(RandomGraph(4, (0,), REFINE, frozenset({3}), frozenset(), {"a": "weak", "b": "strong"}, False))
@given(graphs())
def test_fair_cycle_search_agrees_with_brute_force(m):
    result = check(m, properties=["P"])
    exists, prefix = brute_force(m)
    assert bool(result.violations) == exists
    if exists:
        trace = result.violations[0].trace
        assert trace.loop == prefix  # the prefix is a shortest one
        assert _lasso_is_real_and_fair(m, trace)
        if not m.leads_to:
            assert not any(s in m.goal for s in trace.states)
