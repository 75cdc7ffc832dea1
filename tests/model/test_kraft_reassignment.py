"""Partition reassignment in the KRaft family (KIP-455, the specs' PerformPartitionReassignment):
off by default (every pinned count elsewhere is unchanged), the partition moved off its leader
with its committed record in both generations, the invariants it needs holding and able to fail,
the TLC comparison's counts pinned (docs/kraft.md, "Reassignment"), symmetry keeping verdicts."""

from __future__ import annotations

import pytest
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.registry import build_model

import isrcheck
from tests.fixtures.classic import classic
from tests.fixtures.states import breadth_first

# BrokerCount 3, InitReplicationFactor 2, MinISR 2, one value, ReassignmentLimit 1: the TLC configuration.
REASSIGNMENT = {"replicas": 2, "spare_brokers": 1, "max_reassignments": 1, "min_insync_replicas": 2,
                "max_records": 1, "max_fencings": 0}
GENERATIONS = ["kraft-3.5", "kraft-kip966"]


def _names(trace) -> list[str]:
    return [type(a).__name__ for a in trace.actions]


@pytest.mark.parametrize("generation", GENERATIONS)
def test_the_partition_moves_off_its_leader_with_its_committed_record(generation):
    model = classic(generation=generation, **REASSIGNMENT)
    result = isrcheck.check(model, properties=["NoLeaderMovedOffRemovedReplica"])
    trace = result.violations[0].trace
    assert len(trace) == 12
    names = _names(trace)
    assert names.count("PerformPartitionReassignment") == 1
    reassign = next(a for a in trace.actions if type(a).__name__ == "PerformPartitionReassignment")
    assert (reassign.adding, reassign.removing) == ((3,), (1,))
    complete = trace.actions[-2]
    assert (complete.result, complete.elected) == ("accepted, reassigned", 2)
    last = model.state_view(trace.states[-1])
    assert last["controller.metadataLog"][-1]["replicas"] == [2, 3]
    assert last["controller.metadataLog"][-1]["adding"] == [] and last["partitionStatus.2"] == "Leader"


@pytest.mark.parametrize("generation, counts", [
    # (atomic fetch, split fetch): TLC on the specs as published found 11,005 states, depth 29, all
    # invariants holding; with the two anti-cycle guards removed, 15,625 states at depth 32.
    ("kraft-3.5", (733, 14765)),
    ("kraft-kip966", (733, 14765)),
])
def test_reassignment_keeps_every_invariant_at_the_tlc_bounds(generation, counts):
    atomic = isrcheck.check(classic(generation=generation, **REASSIGNMENT), stop_at_first=False)
    split = isrcheck.check(classic(generation=generation, **REASSIGNMENT, split_fetch=True), stop_at_first=False)
    for result in (atomic, split):
        assert result.complete and not result.violations
        assert {"ReassignmentCompleted", "AddedReplicaInIsr", "LeaderMovedOffRemovedReplica"} <= set(result.examples)
    assert (atomic.distinct_states, split.distinct_states) == counts
    assert split.depth == 32  # TLC's depth on the guard-free specs


def test_the_reassignment_properties_are_present_only_with_reassignment():
    names = {p.name for p in classic(generation="kraft-kip966", replicas=3).properties()}
    assert not names & {"ReplicaSetAtLeastMinIsr", "PartitionWithinReplicas", "EventuallyReassignmentCompletes"}
    with_it = {p.name for p in classic(generation="kraft-kip966", **REASSIGNMENT).properties()}
    assert {"ReplicaSetAtLeastMinIsr", "PartitionWithinReplicas", "EventuallyReassignmentCompletes"} <= with_it
    without_spare = {p.name for p in classic(generation="kraft-kip966", replicas=3, max_reassignments=1).properties()}
    assert "AddedReplicaInIsr" not in without_spare  # nothing to add without a spare broker


def test_the_reassignment_invariants_fail_on_states_that_break_them():
    model = classic(generation="kraft-kip966", **REASSIGNMENT)
    f, lay = model.tables.fields, model.layout
    props = {p.name: p for p in model.properties()}
    s = model.init_states()[0]
    assert props["ReplicaSetAtLeastMinIsr"].predicate(s) and props["PartitionWithinReplicas"].predicate(s)
    t = list(s)
    t[lay.g + f.METADATA_LOG] = ((0, 1, 1, 0b011, 0, 0, 0b011, 0, 0b001),)  # target {2}: below min ISR 2
    assert not props["ReplicaSetAtLeastMinIsr"].predicate(tuple(t))
    t[lay.g + f.METADATA_LOG] = ((2, 1, 1, 0b011, 0, 0, 0b011, 0, 0),)  # leader 3 is not a replica
    assert not props["PartitionWithinReplicas"].predicate(tuple(t))
    t[lay.g + f.METADATA_LOG] = ((0, 1, 1, 0b111, 0, 0, 0b011, 0, 0),)  # ISR member 3 is not a replica
    assert not props["PartitionWithinReplicas"].predicate(tuple(t))


def test_a_spare_broker_starts_without_the_partition_and_only_a_record_naming_it_moves_it():
    model = classic(generation="kraft-kip966", **REASSIGNMENT)
    view = model.state_view(model.init_states()[0])
    assert view["partitionMetadata.replicas.3"] == [] and view["partitionStatus.3"] is None
    assert view["controller.unfenced.3"] is True and view["fetcher.3"] is None
    for state in breadth_first(model, limit=400):
        v = model.state_view(state)
        if 3 not in v["controller.metadataLog"][-1]["replicas"]:
            assert v["partitionData.log.3"] == [] and v["partitionStatus.3"] is None


def test_symmetry_keeps_the_verdicts_with_reassignment():
    options = {"replicas": 3, "init_isr_size": 3, "min_insync_replicas": 2, "max_records": 1, "max_fencings": 0,
               "max_reassignments": 1}
    plain = isrcheck.check(classic(generation="kraft-kip966", **options), stop_at_first=False)
    reduced = isrcheck.check(classic(generation="kraft-kip966", **options), stop_at_first=False, symmetry=True)
    assert plain.complete and reduced.complete and not plain.violations and not reduced.violations
    assert sorted(plain.examples) == sorted(reduced.examples) and plain.depth == reduced.depth
    assert reduced.distinct_states < plain.distinct_states


@pytest.mark.parametrize("bad, words", [
    ({"generation": "kraft-kip966", "replicas": 3, "spare_brokers": 2}, "spare_brokers"),
    ({"generation": "kraft-kip966", "replicas": 2, "max_reassignments": 4}, "max_reassignments"),
    ({"generation": "kip320", "max_reassignments": 1}, "KRaft"),
    ({"generation": "kip320", "spare_brokers": 1}, "KRaft"),
])
def test_impossible_reassignment_options_are_refused(bad, words):
    with pytest.raises((UserError, ValueError)) as err:
        build_model("classic", bad)
    assert words in str(err.value)


# -- rack-aware placement of a reassignment's targets (Kafka's rule; the specs have no racks) ---------

def test_a_naive_reassignment_puts_every_replica_in_one_rack():
    model = classic(generation="kraft-kip966", **REASSIGNMENT, azs=2, placement="naive")
    result = isrcheck.check(model, properties=["ReplicasSpreadOverRacks"])
    trace = result.violations[0].trace
    assert len(trace) == 2
    assert (trace.actions[0].adding, trace.actions[0].removing) == ((3,), (2,))  # {1, 3}: both in rack 1


def test_rack_aware_targets_stay_spread_and_still_move_the_partition():
    model = classic(generation="kraft-kip966", **REASSIGNMENT, azs=2)
    result = isrcheck.check(model, stop_at_first=False)
    assert result.complete and not result.violations
    assert {"LeaderMovedOffRemovedReplica", "AddedReplicaInIsr"} <= set(result.examples)  # {2, 3} is allowed
    assert result.distinct_states < isrcheck.check(classic(generation="kraft-kip966", **REASSIGNMENT),
                                                   stop_at_first=False).distinct_states


@pytest.mark.parametrize("bad, words", [
    ({"generation": "kraft-kip966", "replicas": 3, "azs": 2}, "max-reassignments"),
    ({"generation": "kraft-kip966", **REASSIGNMENT, "placement": "naive"}, "azs >= 1"),
    ({"generation": "kraft-kip966", **REASSIGNMENT, "azs": 5}, "azs=5"),
])
def test_racks_without_a_reassignment_to_place_are_refused(bad, words):
    with pytest.raises((UserError, ValueError)) as err:
        build_model("classic", bad)
    assert words in str(err.value)


@pytest.mark.parametrize("options", [
    {**REASSIGNMENT, "max_fencings": 1},
    {**REASSIGNMENT, "azs": 2},
    {"replicas": 3, "init_isr_size": 3, "min_insync_replicas": 2, "max_records": 1, "max_fencings": 1,
     "max_reassignments": 1},
])
def test_the_canonical_form_behaves_as_the_state_with_reassignment(options):
    # Replica sets, adding/removing masks and the accepted response's replica set are relabelled;
    # with racks only rack-keeping permutations are used (a relabelling across racks is no symmetry).
    model = classic(generation="kraft-kip966", **options)
    props = [p for p in model.properties() if p.kind.name == "ALWAYS"]
    moved = 0
    for s in breadth_first(model, limit=4000)[::3]:
        c = model.canonical(s)
        moved += c != s
        assert model.canonical(c) == c
        for p in props:
            assert bool(p.predicate(s)) == bool(p.predicate(c)), p.name
        assert {model.canonical(t) for _, t in model.successors(s)} == \
            {model.canonical(t) for _, t in model.successors(c)}
    assert moved
