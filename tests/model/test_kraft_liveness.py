"""The KRaft specs' remaining liveness (isrcheck.properties.kraft_liveness and
EventuallyReassignmentCompletes) under the specs' fairness, the violations the catalogue tells
(KIP-966's leaderless end, a reassignment stalled by too weak a fairness), and the scenario command
that spells a fairness table."""

from __future__ import annotations

import shlex

import pytest
from isrcheck.explorer.cli.graph import parse_fairness
from isrcheck.explorer.scenarios import all_scenarios

import isrcheck
from tests.fixtures.classic import classic

TWO_BROKERS = {"replicas": 2, "min_insync_replicas": 2, "max_records": 1, "max_fencings": 1, "max_crashes": 1,
               "stops": "lossy"}
BOTH_LOSE_DATA = {**TWO_BROKERS, "max_fencings": 0, "max_crashes": 2}
REASSIGNMENT = {"replicas": 2, "spare_brokers": 1, "max_reassignments": 1, "min_insync_replicas": 2,
                "max_records": 1, "max_fencings": 0}
NEW = ["EventuallyLeaderElected", "EventuallyIsrConverges", "EventuallyMetadataConverges"]


@pytest.mark.parametrize("generation", ["kraft-3.5", "kraft-kip966"])
@pytest.mark.parametrize("prop", NEW)
def test_the_remaining_liveness_holds_with_one_shutdown(generation, prop):
    result = isrcheck.check(classic(generation=generation, **TWO_BROKERS), properties=[prop])
    assert result.complete and not result.violations


def test_kip966_leaves_the_partition_leaderless_once_both_replicas_lose_their_logs():
    result = isrcheck.check(classic(generation="kraft-kip966", **BOTH_LOSE_DATA),
                            properties=["EventuallyLeaderElected"])
    trace = result.violations[0].trace
    assert len(trace) == 11
    kinds = [type(a).__name__ for a in trace.actions]
    assert kinds.count("Shutdown") == 2
    assert all(a.unclean for a in trace.actions if type(a).__name__ == "ReceiveBrokerRegRequest")
    model = classic(generation="kraft-kip966", **BOTH_LOSE_DATA)
    last = model.state_view(trace.states[-1])["controller.metadataLog"][-1]
    assert (last["leader"], last["isr"], last["elr"]) == (None, [], [])


def test_kafka_3_5_elects_the_last_replica_standing_again():
    result = isrcheck.check(classic(generation="kraft-3.5", **BOTH_LOSE_DATA), properties=["EventuallyLeaderElected"])
    assert result.complete and not result.violations


@pytest.mark.parametrize("generation", ["kraft-3.5", "kraft-kip966"])
def test_a_reassignment_completes_under_the_specs_fairness(generation):
    for fencings in (0, 1):
        model = classic(generation=generation, **{**REASSIGNMENT, "max_fencings": fencings})
        result = isrcheck.check(model, properties=["EventuallyReassignmentCompletes"])
        assert result.complete and not result.violations


def test_without_a_fair_alter_partition_a_reassignment_stalls():
    model = classic(generation="kraft-kip966", **REASSIGNMENT)
    weaker = {k: v for k, v in model.fairness().items() if not k.startswith("SendAlterPartitionRequest")}
    result = isrcheck.check(model, properties=["EventuallyReassignmentCompletes"], fairness=weaker)
    trace = result.violations[0].trace
    assert len(trace) == 7
    assert type(trace.actions[0]).__name__ == "PerformPartitionReassignment"
    assert "SendAlterPartitionRequest" not in [type(a).__name__ for a in trace.actions]


def test_the_stalled_scenario_spells_its_fairness_as_the_command_line_reads_it():
    sc = all_scenarios()["KR-reassignment-stalls"]
    words = shlex.split(sc.command())
    table = parse_fairness(words[words.index("--fairness") + 1])
    assert table == dict(sc.check_options["fairness"])
    assert "SendAlterPartitionRequest b1" not in table and table["Fetch b3"] == "weak"
