"""The durability catalogue (K2, K6, K8, K9, K10): each buggy variant's shortest counterexample at
its pinned length and with the steps its story tells; each fixed variant complete and clean; and the
precise form of the min.insync.replicas promise."""

from __future__ import annotations

import pytest
from isrcheck.explorer.registry import build_model
from isrcheck.model.scenarios.durability import scenarios

import isrcheck
from tests.fixtures.classic import classic

SCENARIOS = {sc.id: sc for sc in scenarios()}


def run(sc):
    model = build_model(sc.model, dict(sc.options))
    return model, isrcheck.check(model, properties=list(sc.properties), **dict(sc.check_options))


def actions(violation) -> list[str]:
    return [type(a).__name__ for a in violation.trace.actions]


def test_every_catalogue_entry_has_a_fixed_counterpart():
    assert {"K2", "K6", "K8", "K9", "K10"} <= set(SCENARIOS)
    for sid, sc in SCENARIOS.items():
        assert sc.story and sc.title and sc.model == "classic"
        if sc.expect == "violated":
            assert sc.trace_length is not None
        base = sid.split("-")[0]
        assert SCENARIOS[f"{base}-fixed"].expect == "holds"


@pytest.mark.parametrize("sid", sorted(SCENARIOS))
def test_scenario_gives_its_catalogued_verdict(sid):
    sc = SCENARIOS[sid]
    model, result = run(sc)
    if sc.expect == "violated":
        [violation] = result.violations
        assert violation.property in sc.properties
        assert len(violation.trace) == sc.trace_length
        states = violation.trace.states
        for before, step in zip(states, violation.trace.steps[1:], strict=False):
            assert (step.action, step.state) in list(model.successors(before))
    else:
        assert result.complete and result.ok, (result.violations, result.vacuous)


def test_k2_divergence_needs_the_power_failure_and_the_re_election():
    _, result = run(SCENARIOS["K2"])
    steps = actions(result.violations[0])
    crash = result.violations[0].trace.actions[steps.index("BrokerCrash")]
    assert crash.lost_unflushed and crash.log_end == 0
    assert steps.index("BrokerCrash") < steps.index("BrokerRestart") < steps.index("ControllerElectLeader", 1)


@pytest.mark.parametrize(
    ("options", "trace_length"),
    [
        # KIP-101 alone: the last ISR member loses its unflushed record and is re-elected.
        ({"generation": "kip101"}, 14),
        # KIP-966's rule alone: pre-0.11 truncation to a stale HW diverges without any crash (K1).
        ({"generation": "truncate-to-hw", "kip966_unclean_recovery": True}, 15),
    ],
)
def test_k2_needs_both_fixes(options, trace_length):
    model = classic(max_crashes=2, stops="lossy", **options)
    [violation] = isrcheck.check(model, properties=["LogMatching"]).violations
    assert len(violation.trace) == trace_length


def test_k6_admits_a_replica_without_the_committed_record():
    _, result = run(SCENARIOS["K6"])
    violation = result.violations[0]
    assert actions(violation)[-1] == "LeaderExpandIsr"
    assert "has nothing" in violation.detail


def test_k8_elects_a_replica_that_never_had_the_record():
    for sid in ("K8", "K8-highest-last-epoch"):
        _, result = run(SCENARIOS[sid])
        steps = actions(result.violations[0])
        assert steps[-2:] == ["UncleanLeaderElection", "BecomeLeader"]
        assert "acknowledged record(s) 0" in result.violations[0].detail


def test_k8_any_live_replica_loses_a_record_another_live_replica_holds():
    """With min.insync.replicas=2 and 3 replicas the record is on a second, live replica; the
    unclean election may still pick the third, which lacks it."""
    model = classic(replicas=3, acks="all", min_insync_replicas=2, max_crashes=1, stops="crash",
                       unclean_election="any")
    [violation] = isrcheck.check(model, properties=["AckedRecordNotLost"], symmetry=True).violations
    assert len(violation.trace) == 13
    final = model.state_view(violation.trace.states[-1])
    leader = str(final["quorumState"]["leader"])
    holders = [r for r, log in final["replicaLog"].items() if any(rec["id"] == 0 for rec in log)]
    assert holders and leader not in holders
    assert [r for r in holders if int(r) not in final["stoppedBrokers"]]


def test_k9_acks_one_is_answered_by_a_leader_about_to_lose_it():
    _, result = run(SCENARIOS["K9"])
    trace = result.violations[0].trace
    assert actions(result.violations[0])[-1] in ("LeaderWrite", "BecomeLeader")
    assert [type(a).__name__ for a in trace.actions].count("ControllerElectLeader") == 2


def test_k10_one_lossy_crash_and_one_isr_member_suffice():
    _, result = run(SCENARIOS["K10"])
    steps = actions(result.violations[0])
    assert steps.count("BrokerCrash") == 1 and "LeaderShrinkIsr" in steps
    assert steps[-2:] == ["ControllerElectLeader", "BecomeLeader"]


@pytest.mark.parametrize(("min_isr", "kip966", "verdict"), [(1, False, 10), (2, False, 13), (2, True, None)])
def test_min_insync_replicas_promise_in_its_precise_form(min_isr, kip966, verdict):
    """acks=all with min.insync.replicas=m survives m - 1 lossy crashes only if a broker that lost
    data may not be re-elected as the last ISR member (KIP-966's rule)."""
    model = classic(acks="all", min_insync_replicas=min_isr, max_crashes=min_isr if min_isr == 1 else min_isr - 1,
                       stops="lossy", kip966_unclean_recovery=kip966)
    result = isrcheck.check(model, properties=["AckedRecordNotLost", "RecordAcknowledged"])
    if verdict is None:
        assert result.complete and result.ok
    else:
        assert len(result.violations[0].trace) == verdict


@pytest.mark.parametrize("stops", ["controlled", "crash"])
def test_acks_all_survives_stops_that_lose_no_data_and_restart_and_catch_up_are_reached(stops):
    """Stops that keep the log (a controlled shutdown, a process crash) never cost an acks=all
    record; stopped brokers come back, catch up and rejoin the ISR along the way."""
    model = classic(acks="all", max_crashes=1, stops=stops)
    result = isrcheck.check(
        model, properties=["AckedRecordNotLost", "RecordAcknowledged", "BrokerStoppedAndBack", "FollowerRejoinedIsr"]
    )
    assert result.complete and result.ok
