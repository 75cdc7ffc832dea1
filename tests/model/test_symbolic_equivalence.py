"""The symbolic relation (model/symbolic) is the explicit model: same successors, as sets.

Every state reachable at 2/2/2/2 in all five generations, and 2,000 states per generation at
3/2/2/2 (10,000 in all, sampled by seeded random walks so deep states are covered), are checked by
evaluating the symbolic steps on the concrete state (``ConcreteOps``, the same code z3 reads) and
enumerating every choice. A smaller sample asks z3 itself for all solutions of ``Next(s, w)``, so
the z3 reading of the relation (bounded bit-vector backend) is checked too.
"""

from __future__ import annotations

import pytest
from isrcheck.explorer.symbolic.ops import BoundedZ3Ops, ConcreteOps
from isrcheck.explorer.symbolic.relation import concrete_successors, solver_successors
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import GENERATIONS, classic
from tests.fixtures.states import random_walk_sample, reachable


def explicit_successors(model, state):
    return {(type(a).__name__, t) for a, t in model.successors(state)}


def assert_same(model, sym, states, successors):
    checked = 0
    for s in states:
        want = explicit_successors(model, s)
        got = successors(s)
        assert len(got) == len(set(got)), f"the symbolic relation gives a successor twice from {s}"
        assert set(got) == want, (
            f"from {s}: only symbolic {set(got) - want}; only explicit {want - set(got)}")
        checked += 1
    return checked


SLOW = pytest.mark.slow  # CI runs them; the fast loop keeps one generation of each kind


@pytest.mark.parametrize("generation", [pytest.param(g, marks=SLOW) if g != "kip320" else g for g in GENERATIONS])
def test_every_reachable_state_2_2_2_2(generation):
    model = classic(generation=generation, replicas=2)
    sym = make_symbolic(model)
    ops = ConcreteOps()
    states = reachable(model)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == len(states) > 5000


@pytest.mark.parametrize("generation", [pytest.param(g, marks=SLOW) if g != "kip279" else g for g in GENERATIONS])
def test_sample_3_2_2_2(generation):
    model = classic(generation=generation, replicas=3)
    sym = make_symbolic(model)
    ops = ConcreteOps()
    states = random_walk_sample(model, 2000, seed=GENERATIONS.index(generation))
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == 2000


@pytest.mark.parametrize("generation,replicas", [pytest.param(g, 2, marks=SLOW) for g in GENERATIONS]
                         + [("kip279", 3), pytest.param("kip320", 3, marks=SLOW)])
def test_z3_all_solutions_sample(generation, replicas):
    model = classic(generation=generation, replicas=replicas)
    sym = make_symbolic(model)
    ops = BoundedZ3Ops()
    states = random_walk_sample(model, 12, seed=7)
    assert assert_same(model, sym, states, lambda s: solver_successors(sym, ops, s)) == 12


@pytest.mark.parametrize("truncation", ["on-fetch", "on-fetch-hw-first"])
def test_truncation_on_fetch_is_derived(truncation):
    """A generation derived by an option (Generation.on_fetch: lazy truncation, the matching-prefix
    rule, K13's FollowerUpdateHighWatermark) has no symbolic code of its own: its relation is derived
    from the generation's description, and is the explicit model's on every reachable state."""
    model = classic(generation="kip320", replicas=2, truncation=truncation)
    sym = make_symbolic(model)
    labels = {step.label for step in sym.steps()}
    assert ("FollowerUpdateHighWatermark" in labels) == (truncation == "on-fetch-hw-first")
    ops = ConcreteOps()
    states = reachable(model)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == len(states) > 1000
    sample = random_walk_sample(model, 6, seed=3)  # and z3's reading of the same relation
    assert assert_same(model, sym, sample, lambda s: solver_successors(sym, BoundedZ3Ops(), s)) == 6


def test_a_wrong_step_is_caught():
    """The comparison can fail: drop the HW cap from the symbolic FollowerReplicate."""
    model = classic(generation="kip320", replicas=2)
    sym = make_symbolic(model)
    steps = list(sym.steps())
    for i, step in enumerate(steps):
        if step.label == "FollowerReplicate":
            original = step.fn

            def broken(o, v, original=original):
                guard, nxt = original(o, v)
                if nxt is not None:
                    nxt.hw = [h + 1 if isinstance(h, int) else h for h in nxt.hw]
                return guard, nxt

            steps[i] = type(step)(step.label, broken, step.params)
    sym._steps = steps
    ops = ConcreteOps()
    with pytest.raises(AssertionError, match="only symbolic"):
        assert_same(model, sym, sorted(reachable(model)), lambda s: concrete_successors(sym, s, ops))
