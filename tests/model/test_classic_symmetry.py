"""Replica symmetry: reduced counts (measured, not TLC's), same verdicts, and a sound canonical form."""

from __future__ import annotations

import pytest

import isrcheck
from tests.fixtures.classic import GENERATIONS, classic, each_generation
from tests.fixtures.states import breadth_first


@pytest.mark.parametrize(
    ("generation", "replicas", "distinct", "depth"),
    each_generation([
        ("truncate-to-hw", 2, 5_066, 20),
        ("kip101", 2, 4_523, 18),
        ("kip279", 2, 4_514, 18),
        ("kip320-first-try", 2, 4_215, 18),
        ("kip320", 2, 2_987, 18),
        ("kip320", 3, 123_311, 26),
    ]),
)
def test_symmetry_reduced_counts_are_pinned(generation, replicas, distinct, depth):
    model = classic(generation=generation, replicas=replicas, property_set="TypeOk")
    result = isrcheck.check(model, symmetry=True, properties=["TypeOk"])
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == (distinct, depth)


@pytest.mark.parametrize(
    ("generation", "replicas", "trace_length"),
    # kip320 keeps StrongIsr: test_symmetry_keeps_kip320_strong_isr_verdict
    each_generation([("truncate-to-hw", 2, 10), ("kip101", 2, 12), ("kip279", 3, 11), ("kip320-first-try", 3, 13)],
                    elsewhere=["kip320"]),
)
def test_symmetry_keeps_strong_isr_verdict_and_shortest_trace(generation, replicas, trace_length):
    model = classic(generation=generation, replicas=replicas)
    [violation] = isrcheck.check(model, symmetry=True, properties=["StrongIsr"]).violations
    assert len(violation.trace) == trace_length


def test_symmetry_keeps_kip320_strong_isr_verdict():
    model = classic(generation="kip320", replicas=3)
    result = isrcheck.check(model, symmetry=True, stop_at_first=False)
    assert result.complete and result.violations == [] and result.vacuous == []


@pytest.mark.parametrize("generation", GENERATIONS)
def test_canonical_is_idempotent_and_constant_on_orbits(generation):
    model = classic(generation=generation, replicas=3)
    for state in breadth_first(model, limit=3000):
        rep = model.canonical(state)
        assert model.canonical(rep) == rep
        assert rep <= state
        orbit = model._symmetry.orbit(state)
        assert orbit[0] == state
        assert {model.canonical(other) for other in orbit} == {rep}


@pytest.mark.parametrize("generation", GENERATIONS)
def test_properties_are_invariant_under_relabelling(generation):
    model = classic(generation=generation, replicas=3, property_set="all")
    props = [
        p for p in model.properties() if p.kind is isrcheck.Kind.ALWAYS or p.kind is isrcheck.Kind.SOMETIMES
    ]
    for state in breadth_first(model, limit=3000):
        verdicts = [p.predicate(state) for p in props]
        for other in model._symmetry.orbit(state):
            assert [p.predicate(other) for p in props] == verdicts


@pytest.mark.parametrize("generation", GENERATIONS)
def test_relabelling_commutes_with_successors(generation):
    """Relabelling replicas maps successors to successors: the premise of symmetry reduction."""
    model = classic(generation=generation, replicas=3)
    for state in breadth_first(model, limit=500):
        expected = {model.canonical(t) for _, t in model.successors(state)}
        for other in model._symmetry.orbit(state):
            assert {model.canonical(t) for _, t in model.successors(other)} == expected
