"""Broker symmetry of the KRaft generations (isrcheck.model.kraft.symmetry): the canonical form is a
state that behaves the same (its steps are relabellings of the state's steps, and every property
gives the same answer on both), so a reduced run keeps every verdict, shortest trace and witness;
the reduced counts are pinned (docs/kraft.md)."""

from __future__ import annotations

import pytest

import isrcheck
from tests.fixtures.classic import classic
from tests.fixtures.states import breadth_first

# Followers 2 and 3 start alike (the ISR is every broker): the most symmetric start the specs allow.
SYMMETRIC_START = {"replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 3,
                   "max_fencings": 1}
# Two shutdowns: stale registrations, whose broker epochs the canonical form renames.
TWO_SHUTDOWNS = {"replicas": 2, "min_insync_replicas": 2, "max_records": 1, "max_crashes": 1, "stops": "all",
                 "max_fencings": 0}  # explicit: the KRaft default is one fencing


def _outcome(result):
    return (result.complete, sorted((v.property, len(v.trace)) for v in result.violations), sorted(result.examples),
            sorted(result.vacuous))


@pytest.mark.parametrize("generation, options, counts", [
    ("kraft-3.5", SYMMETRIC_START, (2060, 1033)),
    ("kraft-kip966", SYMMETRIC_START, (2060, 1033)),
    ("kraft-3.5", TWO_SHUTDOWNS, (4884, 4660)),
    ("kraft-kip966", TWO_SHUTDOWNS, (19514, 19319)),
])
def test_symmetry_keeps_every_verdict_at_pinned_counts(generation, options, counts):
    plain = isrcheck.check(classic(generation=generation, **options), stop_at_first=False)
    reduced = isrcheck.check(classic(generation=generation, **options), stop_at_first=False, symmetry=True)
    assert _outcome(plain) == _outcome(reduced)
    assert plain.depth == reduced.depth
    assert (plain.distinct_states, reduced.distinct_states) == counts


@pytest.mark.parametrize("generation, options", [
    ("kraft-kip966", {**TWO_SHUTDOWNS, "max_fencings": 1}),
    ("kraft-3.5", {**SYMMETRIC_START, "max_crashes": 1, "stops": "lossy", "split_fetch": True}),
])
def test_the_canonical_form_behaves_as_the_state(generation, options):
    # Every field kind is exercised: stale registrations and their epochs, AlterPartition slots,
    # fetches in flight (split fetch), ELR masks (KIP-966).
    model = classic(generation=generation, **options)
    props = [p for p in model.properties() if p.kind.name == "ALWAYS"]
    states = breadth_first(model, limit=6000)
    moved = 0
    for s in states[::3]:
        c = model.canonical(s)
        moved += c != s
        assert model.canonical(c) == c
        for p in props:
            assert bool(p.predicate(s)) == bool(p.predicate(c)), p.name
        assert {model.canonical(t) for _, t in model.successors(s)} == \
            {model.canonical(t) for _, t in model.successors(c)}
    assert moved  # the canonical form is not the identity on these states


def test_symmetry_finds_k11_at_the_same_depth():
    anchor = {"replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2, "max_fencings": 1,
              "max_crashes": 1, "stops": "lossy"}
    result = isrcheck.check(classic(generation="kraft-3.5", **anchor), properties=["LeaderCompleteness"], symmetry=True)
    assert len(result.violations[0].trace) == 8
