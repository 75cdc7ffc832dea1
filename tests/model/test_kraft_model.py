"""The KRaft-era generations (isrcheck.model.kraft): the anchor's violation at TLC's depth, the fixes at
pinned counts, each property able to fail, the actions a trace shows, and refused options.

Counts pinned here are this model's (no message network: see docs/kraft.md), not TLC's; the
anchor compares with TLC by trace length (K11: 8 states, TLC's depth 8)."""

from __future__ import annotations

import pytest
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import all_scenarios

import isrcheck
from tests.fixtures.classic import classic

ANCHOR = {"replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2, "max_fencings": 1,
          "max_crashes": 1, "stops": "lossy"}
NO_SHUTDOWN = {**ANCHOR, "max_crashes": 0, "stops": "all"}


def kraft(generation: str, **options):
    return classic(generation=generation, **options)


def actions(trace) -> list[str]:
    return [type(a).__name__ if type(a).__name__ != "Shutdown" else a.kind for a in trace.actions]


def test_k11_last_replica_standing_loses_a_committed_record_at_tlc_depth():
    result = isrcheck.check(kraft("kraft-3.5", **ANCHOR), properties=["LeaderCompleteness"])
    trace = result.violations[0].trace
    assert len(trace) == 8  # TLC: depth 8 on the same constants
    assert actions(trace) == ["WriteRecordToLeader", "FenceBroker", "ReceiveMetadataUpdate", "UncleanShutdown",
                              "BrokerStart", "ReceiveBrokerRegRequest", "ReceiveBrokerRegResponse"]
    assert trace.actions[2].then == "RemainLeader"  # the HW advances with ISR {1} < min ISR 2
    assert trace.actions[5].elected == 1  # the lone, empty ISR member is elected again


def test_k7_hw_over_the_isr_runs_ahead_of_an_added_member():
    result = isrcheck.check(kraft("kraft-3.5", **NO_SHUTDOWN, hw_over_maximal_isr=False),
                            properties=["LeaderCandidateCompleteness"])
    trace = result.violations[0].trace
    assert len(trace) == 8
    assert "SendAlterPartitionRequest" in actions(trace)
    assert actions(trace)[-1] == "ReceiveAlterPartitionRequest" and trace.actions[-1].result == "accepted"


def test_k7_fixed_maximal_isr_holds_at_pinned_counts():
    result = isrcheck.check(kraft("kraft-3.5", **NO_SHUTDOWN))
    assert result.complete and result.ok, (result.violations, result.vacuous)
    assert (result.distinct_states, result.depth) == (9983, 22)


@pytest.mark.parametrize("generation", ["kraft-3.5", "kraft-kip966"])
def test_the_specs_own_encoding_checks_hold(generation):
    result = isrcheck.check(kraft(generation, **NO_SHUTDOWN), properties=["ValidControllerState", "ValidReplicaState"])
    assert result.complete and not result.violations


def test_kip966_without_shutdowns_holds_and_reaches_the_elr():
    result = isrcheck.check(kraft("kraft-kip966", **NO_SHUTDOWN))
    assert result.complete and result.ok, (result.violations, result.vacuous)
    assert (result.distinct_states, result.depth) == (9845, 22)
    assert "ElrNonEmpty" in result.examples


@pytest.mark.slow
def test_k11_fixed_kip966_holds_at_the_anchor_bounds():
    # 973,728 states: about a minute on a quiet machine (docs/kraft.md); the catalogue test leaves
    # this scenario to this test (tests/model/test_scenarios.py, ELSEWHERE).
    result = isrcheck.check(kraft("kraft-kip966", **ANCHOR))
    assert result.complete and result.ok, (result.violations, result.vacuous)
    assert (result.distinct_states, result.depth) == (973728, 33)


def test_kip966_with_the_3_5_hw_rule_would_lose_the_record():
    # The ELR alone is not enough: with KIP-966's election but a leader that advances the HW while
    # its ISR is below min ISR, an ELR member is elected without the committed record.
    from isrcheck.model.kraft import KraftConfig, KraftModel
    from isrcheck.model.kraft import generations as g

    loose = g.KraftGeneration("kip966-no-hw-rule", "test", isr_floor_one=False, elr=True, hw_needs_min_isr=False,
                              broker_epoch_on_disk=True, lossy_shutdown="DataLossShutdown",
                              clean_shutdown="NoDataLossShutdown")
    g.KRAFT_GENERATIONS[loose.name] = loose
    try:
        model = KraftModel(KraftConfig(generation=loose.name, brokers=3, min_isr=2, init_isr_size=2, values=1,
                                       lossy_shutdowns=1, fencings=1))
        result = isrcheck.check(model, properties=["LeaderCompleteness", "LeaderCandidateCompleteness"])
    finally:
        del g.KRAFT_GENERATIONS[loose.name]
    assert result.violations


def test_split_fetch_finds_k11_at_the_same_depth_and_k7_one_step_later():
    # The spec's three fetch steps with messages in flight: K11 has no fetch on its path (8 states,
    # TLC's depth); K7's leader learns the follower's offset from a request, not a round trip (9).
    k11 = isrcheck.check(kraft("kraft-3.5", **ANCHOR, split_fetch=True), properties=["LeaderCompleteness"])
    assert len(k11.violations[0].trace) == 8
    k7 = isrcheck.check(kraft("kraft-3.5", **NO_SHUTDOWN, hw_over_maximal_isr=False, split_fetch=True),
                        properties=["LeaderCandidateCompleteness"])
    assert len(k7.violations[0].trace) == 9
    assert "ReceiveFetchRequest" in actions(k7.violations[0].trace)


TWO_BROKERS = {"replicas": 2, "min_insync_replicas": 2, "max_records": 1, "max_fencings": 1, "max_crashes": 1,
               "stops": "lossy"}


@pytest.mark.parametrize("generation, counts", [
    ("kraft-3.5", (4560, 26876)),
    pytest.param("kraft-kip966", (9231, 68502), marks=pytest.mark.slow),
])
def test_split_fetch_agrees_with_the_atomic_fetch_on_every_verdict(generation, counts):
    # The abstraction check of docs/kraft.md: the in-flight fetch window adds states, not verdicts.
    atomic = isrcheck.check(kraft(generation, **TWO_BROKERS), stop_at_first=False)
    split = isrcheck.check(kraft(generation, **TWO_BROKERS, split_fetch=True), stop_at_first=False)
    assert atomic.complete and split.complete
    assert (atomic.distinct_states, split.distinct_states) == counts
    assert sorted(v.property for v in atomic.violations) == sorted(v.property for v in split.violations)
    assert atomic.vacuous == split.vacuous


def test_the_kraft_scenarios_are_registered():
    assert {"K7", "K7-fixed", "K11", "K11-fixed"} <= set(all_scenarios())


@pytest.mark.parametrize("bad, words", [
    ({"generation": "kraft-kip966", "avoid_last_replica_standing": True}, "kraft-3.5 only"),
    ({"generation": "kraft-3.5", "init_isr_size": 1, "min_insync_replicas": 2, "replicas": 3}, "init_isr_size"),
    ({"generation": "kraft-3.5", "replicas": 3, "consumer_reads": "leader"}, "consumer_reads"),
    ({"generation": "kraft-3.5", "replicas": 3, "stops": "crash", "max_crashes": 1}, "stops"),
    ({"generation": "kraft-3.5", "replicas": 3, "log_size": 3}, "log_size"),
    ({"generation": "kip320", "max_fencings": 1}, "KRaft"),
])
def test_options_that_do_not_apply_are_refused(bad, words):
    with pytest.raises((ValueError, UserError)) as exc:
        build_model("classic", bad)
    assert words in str(exc.value)


def test_zookeeper_generations_are_untouched_by_the_kraft_options():
    result = isrcheck.check(classic(generation="kip320"))
    assert (result.distinct_states, result.depth) == (5973, 18)  # TLC's count, as tests/model/test_classic_parity.py


def test_state_view_names_the_spec_variables_and_signals_the_offline_partition():
    model = kraft("kraft-3.5", **ANCHOR)
    result = isrcheck.check(model, properties=["LeaderCompleteness"])
    trace = result.violations[0].trace
    view = model.state_view(trace.states[4])  # after the unclean shutdown of broker 1
    assert view["brokerState.status.1"] == "OFFLINE_DIRTY" and view["partitionData.log.1"] == []
    assert view["controller.metadataLog"][-1]["leader"] is None
    assert model.signals(trace.states[4])["offline"] is True


# -- each property can fail: a reachable state, one field changed --------------------------------------

def _initial(generation="kraft-kip966"):
    model = kraft(generation, **ANCHOR)
    return model, list(model.init_states()[0])


def _prop(model, name):
    return next(p for p in model.properties() if p.name == name)


def test_every_invariant_fails_on_a_state_that_breaks_it():
    model, s = _initial()
    f, lay = model.tables.fields, model.layout
    b1, b2 = lay.base[0], lay.base[1]
    broken = {}
    t = list(s)
    t[lay.g + f.TRUE_HW] = 1  # a committed record nobody has
    broken["LeaderCompleteness"] = t
    broken["LeaderCandidateCompleteness"] = t
    t = list(s)
    t[b1 + f.MD_MAXIMAL_ISR] = 0b001  # the leader's maximal ISR misses ISR member 2
    broken["ReplicationQuorumSuperset"] = t
    t = list(s)
    t[b1 + f.LOG], t[b2 + f.LOG] = (1,), (2,)  # values A and B at offset 0 (2 values: codes epoch*2+v)
    t[b1 + f.HW] = t[b2 + f.HW] = 1
    broken["LogMatching"] = (t, {"max_records": 2})
    t = list(s)
    t[b2 + f.MD_OFFSET] = 5
    broken["MetadataLogMatching"] = t
    t = list(s)
    t[lay.g + f.CONSUMED] = (1,)
    broken["ConsistentRead"] = t
    t = list(s)
    t[lay.g + f.ACKED] = 1
    broken["NoCommittedRecordLostGlobally"] = t
    t = list(s)
    t[lay.g + f.METADATA_LOG] = ((-1, 2, 3, 0, 0, 0b010, 0b111, 0, 0),)
    broken["MinIsrRecoveryQuorum"] = t
    t = list(s)
    t[lay.g + f.METADATA_LOG] = ((0, 1, 2, 0b011, 0b010, 0, 0b111, 0, 0),)  # broker 2 in both ISR and ELR
    broken["ValidControllerState"] = t
    t = list(s)
    t[b2 + f.ROLE] = f.LEADER  # broker 2 acts as leader of a partition whose metadata names broker 1
    broken["ValidReplicaState"] = t
    for name, value in broken.items():
        state, options = value if isinstance(value, tuple) else (value, {})
        m = kraft("kraft-kip966", **{**ANCHOR, **options}) if options else model
        assert _prop(m, name).predicate(tuple(s)) if not options else True, name
        assert not _prop(m, name).predicate(tuple(state)), name


# -- the lost registration: requests in flight survive their broker's shutdown, as in the spec --------

LOST_REGISTRATION = {"replicas": 2, "min_insync_replicas": 2, "max_records": 1, "max_crashes": 1, "stops": "all",
                     "max_fencings": 0}  # explicit: the KRaft default is one fencing


@pytest.mark.parametrize("generation", ["kraft-3.5", "kraft-kip966"])
def test_the_lost_registration_is_reached_in_tlcs_six_states(generation):
    # TLC, NoLostRegistration added to each spec at these constants: violated at depth 6 with these
    # actions (docs/kraft.md).
    model = kraft(generation, **LOST_REGISTRATION)
    result = isrcheck.check(model, properties=["NoLostRegistration"])
    trace = result.violations[0].trace
    assert len(trace) == 6
    gen = model.config.gen
    assert actions(trace) == [gen.lossy_shutdown, "BrokerStart", gen.clean_shutdown, "BrokerStart",
                              "ReceiveBrokerRegRequest"]
    assert trace.actions[-1].stale and trace.actions[-1].broker == 1
    assert trace.actions[-1].unclean == gen.broker_epoch_on_disk  # KIP-966: the first request sent epoch 0
    # The controller holds broker 1 UNFENCED for a dead incarnation: its current request is refused.
    last = trace.states[-1]
    assert not [a for a, _ in model.successors(last)
                if type(a).__name__ == "ReceiveBrokerRegRequest" and a.broker == 1]


@pytest.mark.parametrize("generation, counts", [
    ("kraft-3.5", (4884, 24)),  # 4,812 before requests outlived their broker
    ("kraft-kip966", (19514, 25)),  # 18,875 before
])
def test_two_shutdowns_reach_the_witness_at_pinned_counts(generation, counts):
    result = isrcheck.check(kraft(generation, **LOST_REGISTRATION), stop_at_first=False)
    assert result.complete and "LostRegistration" in result.examples
    assert (result.distinct_states, result.depth) == counts


def test_one_shutdown_has_no_lost_registration_to_witness():
    names = [p.name for p in kraft("kraft-kip966", **ANCHOR).properties()]
    assert "LostRegistration" not in names and "NoLostRegistration" not in names


# -- KAFKA-19996: premature ISR expansion under min ISR -----------------------------------------------

def test_kafka_19996_a_leader_under_min_isr_adds_a_follower_behind_its_log_end():
    result = isrcheck.check(kraft("kraft-kip966", **NO_SHUTDOWN), properties=["NoPrematureIsrExpansion"])
    trace = result.violations[0].trace
    assert len(trace) == 6
    assert actions(trace) == ["WriteRecordToLeader", "Fetch", "FenceBroker", "ReceiveMetadataUpdate",
                              "SendAlterPartitionRequest"]
    assert trace.actions[-1].isr == (1, 2)


def test_kafka_19996_fixed_expands_only_at_the_log_end_and_reaches_the_same_states():
    # The same distinct states: a premature proposal reaches what proposing first and writing after
    # reaches (the bug costs availability, not safety); fewer transitions.
    fixed = isrcheck.check(kraft("kraft-kip966", **NO_SHUTDOWN, expand_at_leo_under_min_isr=True),
                           properties=["NoPrematureIsrExpansion"])
    assert fixed.complete and not fixed.violations
    assert fixed.distinct_states == 9845
    everything = isrcheck.check(kraft("kraft-kip966", **NO_SHUTDOWN, expand_at_leo_under_min_isr=True))
    assert everything.complete and everything.ok, (everything.violations, everything.vacuous)


def test_the_kafka_19996_fix_is_refused_for_zookeeper_generations():
    with pytest.raises((ValueError, UserError)) as exc:
        build_model("classic", {"generation": "kip320", "expand_at_leo_under_min_isr": True})
    assert "KRaft" in str(exc.value)


# -- liveness under the specs' fairness (isrcheck.model.kraft.fairness) -------------------------------

LIVENESS = ["EventuallyRuns", "EventuallyUnfenced", "EventuallyWriteIsAcceptedOrRejected"]


@pytest.mark.parametrize("generation", ["kraft-3.5", "kraft-kip966"])
@pytest.mark.parametrize("prop", LIVENESS)
def test_the_specs_liveness_holds_with_one_shutdown(generation, prop):
    result = isrcheck.check(kraft(generation, **TWO_BROKERS), properties=[prop])
    assert result.complete and not result.violations


def test_a_lost_registration_keeps_a_broker_starting_for_ever():
    result = isrcheck.check(kraft("kraft-kip966", **LOST_REGISTRATION), properties=["EventuallyRuns"])
    trace = result.violations[0].trace
    assert len(trace) == 7
    assert any(getattr(a, "stale", False) for a in trace.actions)
    model = kraft("kraft-kip966", **LOST_REGISTRATION)
    assert model.state_view(trace.states[-1])["brokerState.status.1"] == "STARTING"


def test_fairness_names_every_broker_of_the_specs_liveness_steps():
    model = kraft("kraft-kip966", **TWO_BROKERS)
    table = model.fairness()
    assert table["ReceiveBrokerRegRequest b1"] == "weak" and table["Fetch b2"] == "weak"
    assert "FenceBroker b1" not in table and "WriteRecordToLeader b1" not in table
