"""Swarm simulation in one process: behaviour i under a seed of its own, so any split of the
behaviours into chunks gives the same run; the first violation is the smallest behaviour index."""

from __future__ import annotations

import pytest
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.search.swarm import behaviour_seed, merge_chunks, swarm, walk_chunk
from isrcheck.explorer.selection import select_properties

from tests.fixtures.models import Bits, Counters


def outcome(result):
    """Everything a swarm run reports but its wall time."""
    return {
        "behaviours": result.behaviours, "states": result.states, "longest": result.longest,
        "violations": [(v.property, v.kind, v.trace.actions, v.trace.states) for v in result.violations],
        "reached": result.reached, "not_reached": result.not_reached,
    }


def violating(model, props, *, depth, seed, count):
    """The behaviour indices below ``count`` that violate, each walked alone."""
    inits = list(model.init_states())
    return [i for i in range(count)
            if walk_chunk(model, props, inits, depth=depth, seed=seed, start=i, stop=i + 1).violation]


def test_seeds_are_fixed_numbers_not_hash_salts():
    # Pinned: a change of the derivation would change every swarm run (and its documented figures).
    assert behaviour_seed(0, 0) == behaviour_seed(0, 0) != behaviour_seed(0, 1) != behaviour_seed(1, 0)
    assert behaviour_seed(7, 3) == 0x656ACA08D510B545


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
def test_any_chunk_size_gives_the_same_run(chunk):
    kwargs = {"depth": 4, "behaviours": 300, "seed": 11, "properties": ["NeverClearBit0", "AllSet", "MoreThanAllSet"]}
    assert outcome(swarm(Bits(4), chunk=chunk, **kwargs)) == outcome(swarm(Bits(4), chunk=300, **kwargs))


def test_the_first_violation_is_the_smallest_behaviour_index():
    model, props = Bits(4), select_properties(Bits(4), ["NeverClearBit0"])
    found = violating(model, props, depth=3, seed=5, count=400)
    assert len(found) > 3  # several behaviours violate: the choice matters
    # Chunks in reverse order, each reporting its own first violation: the merge keeps the smallest.
    inits = list(model.init_states())
    reports = [walk_chunk(model, props, inits, depth=3, seed=5, start=a, stop=a + 50) for a in range(350, -1, -50)]
    assert sum(r.violation is not None for r in reports) > 1
    merged = merge_chunks(reports, props, depth=3, seed=5, elapsed=1.0)
    assert merged.behaviours == found[0] + 1
    alone = walk_chunk(model, props, inits, depth=3, seed=5, start=found[0], stop=found[0] + 1)
    assert merged.violations[0].trace == alone.violation[1].trace
    assert outcome(merged) == outcome(swarm(model, depth=3, behaviours=400, seed=5, properties=["NeverClearBit0"]))


def test_counts_cover_the_behaviours_up_to_the_violation_only():
    result = swarm(Counters(3, 5, bug_at=4), depth=20, behaviours=500, seed=3, chunk=100)
    assert result.behaviours == 1 and result.states == 5 and len(result.violations) == 1


def test_no_violation_counts_every_behaviour():
    result = swarm(Counters(3, 5, bug_at=4), depth=4, behaviours=50, seed=1, chunk=8)
    assert result.ok and result.behaviours == 50 and result.states == 200 and result.longest == 4


@pytest.mark.parametrize("bad", [{"depth": 0}, {"behaviours": -1}, {"seed": "x"}])
def test_bad_bounds_are_refused(bad):
    with pytest.raises(UserError):
        swarm(Counters(), **{"depth": 5, "behaviours": 5, "seed": 0, **bad})


def test_unknown_property_names_the_known_ones():
    with pytest.raises(UserError, match="unknown property 'Nope'; this model has: NeverClearBit0"):
        swarm(Bits(3), depth=5, behaviours=5, properties=["Nope"])


def test_a_model_fault_counts_only_before_the_first_violation():
    from isrcheck.explorer.search.swarm import ChunkReport, first_fault

    violation = ChunkReport(0, 10, violation=(4, None))
    assert first_fault([violation, ChunkReport(10, 20, fault={"index": 12})]) is None
    assert first_fault([violation, ChunkReport(0, 3, fault={"index": 2})]) == {"index": 2}
    assert first_fault([ChunkReport(5, 9, fault={"index": 7}), ChunkReport(0, 5, fault={"index": 3})]) == {"index": 3}
