"""Racks: one availability-zone failure loses an acknowledged record under naive placement (two of
three replicas share a zone) and keeps it under rack-aware placement; and the catalogue entries."""

from __future__ import annotations

import pytest
from isrcheck.explorer.registry import build_model
from isrcheck.model.scenarios.consumers import scenarios

import isrcheck
from tests.fixtures.classic import classic

SCENARIOS = {sc.id: sc for sc in scenarios()}
AZ = {"replicas": 3, "log_size": 1, "max_records": 1, "max_leader_epoch": 2, "acks": "all",
      "min_insync_replicas": 2, "azs": 3, "max_az_failures": 1}


def test_naive_placement_loses_the_record_when_its_shared_zone_fails():
    model = classic(placement="naive", kip966_unclean_recovery=True, **AZ)
    [v] = isrcheck.check(model, properties=["AckedRecordSurvives"]).violations
    assert len(v.trace) == 9
    failure = v.trace.actions[-1]
    assert type(failure).__name__ == "AvailabilityZoneFailure" and failure.brokers == (1, 2)
    assert failure.log_ends == (0, 0)
    assert "in no replica's log" in v.detail


def test_rack_aware_placement_without_kip966_still_loses_it_as_the_last_replica_standing():
    """One zone per replica is not enough on its own: the ISR may shrink to the leader, whose zone
    fails; the leader comes back empty, is re-elected as the last ISR member and its follower
    truncates the surviving copy (K10's mechanism). It needs one more leader epoch than the
    scenario's bounds (the controller's shrink, the AZ failure and the re-election each take one)."""
    model = classic(placement="rack-aware", **{**AZ, "max_leader_epoch": 3})
    [v] = isrcheck.check(model, properties=["AckedRecordSurvives"], symmetry=True).violations
    names = [type(a).__name__ for a in v.trace.actions]
    assert "AvailabilityZoneFailure" in names and names[-1] == "BecomeFollowerAndTruncate"


def test_rack_aware_with_one_epoch_after_the_failure_holds_quickly():
    model = classic(placement="rack-aware", kip966_unclean_recovery=True, **{**AZ, "max_leader_epoch": 1})
    result = isrcheck.check(model, properties=["AckedRecordSurvives", "RecordAcknowledged", "BrokerStoppedAndBack"],
                            symmetry=True)
    assert result.complete and result.ok and result.distinct_states == 27_246


def run(sc):
    model = build_model(sc.model, dict(sc.options))
    return model, isrcheck.check(model, properties=list(sc.properties), **dict(sc.check_options))


def test_every_entry_has_a_story_and_buggy_ones_a_fixed_counterpart():
    assert set(SCENARIOS) == {"K12", "K12-on-fetch", "K13", "K13-fixed", "AZ-naive", "AZ-rack-aware"}
    for sc in SCENARIOS.values():
        assert sc.story and sc.title and sc.model == "classic"
        assert (sc.trace_length is not None) == (sc.expect == "violated")


@pytest.mark.parametrize("sid", sorted(set(SCENARIOS) - {"AZ-rack-aware"}))
def test_scenario_gives_its_catalogued_verdict(sid):
    sc = SCENARIOS[sid]
    model, result = run(sc)
    if sc.expect == "violated":
        [violation] = result.violations
        assert violation.property in sc.properties and len(violation.trace) == sc.trace_length
        for before, step in zip(violation.trace.states, violation.trace.steps[1:], strict=False):
            assert (step.action, step.state) in list(model.successors(before))
    else:
        assert result.complete and result.ok, (result.violations, result.vacuous)


@pytest.mark.slow
def test_rack_aware_scenario_holds():
    _, result = run(SCENARIOS["AZ-rack-aware"])
    assert result.complete and result.ok, (result.violations, result.vacuous)
    assert result.distinct_states == 492_239
