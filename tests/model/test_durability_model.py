"""The durability options: validated up front, invisible when off, and a well-behaved model when on
(plain states, deterministic successors, picklable, a sound symmetry, the steps Kafka would take)."""

from __future__ import annotations

import inspect
import pickle
import random
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from isrcheck.model import make_model
from isrcheck.model.actions import BrokerCrash, BrokerRestart, ControlledShutdown, FlushLog, LeaderWrite
from isrcheck.model.generations import GENERATIONS

import isrcheck
from tests.fixtures.classic import classic
from tests.fixtures.states import breadth_first, walk

# -- options ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"acks": "2"}, ["acks", "'2'", "all"]),
        ({"acks": "all", "min_insync_replicas": 0}, ["min_insync_replicas=0", "1 <= min_insync_replicas <= replicas"]),
        ({"acks": "all", "min_insync_replicas": 3}, ["min_insync_replicas=3", "replicas"]),
        ({"min_insync_replicas": 2}, ["min_insync_replicas=2", "acks='all'"]),
        ({"acks": "all", "min_insync_replicas": True}, ["min_insync_replicas", "int"]),
        ({"max_crashes": -1}, ["max_crashes=-1", "0 <= max_crashes"]),
        ({"max_crashes": 9}, ["max_crashes=9"]),
        ({"stops": "lossy"}, ["stops='lossy'", "max_crashes >= 1"]),
        ({"max_crashes": 1, "stops": "meteor"}, ["stops='meteor'", "crash+lossy"]),
        ({"unclean_election": "yes"}, ["unclean_election='yes'", "highest-last-epoch"]),
        ({"unclean_election": "any"}, ["unclean_election='any'", "max_crashes >= 1"]),
        ({"unclean_election": "any", "max_crashes": 1, "stops": "controlled"}, ["unclean_election", "stops"]),
        ({"generation": "kip279", "expand_before_epoch_start": True}, ["expand_before_epoch_start", "kip320"]),
        ({"kip966_unclean_recovery": True}, ["kip966_unclean_recovery", "lossy"]),
    ],
)
def test_bad_durability_options_raise_value_error_naming_option_and_fix(options, words):
    with pytest.raises(ValueError) as info:
        make_model(**options)
    for word in words:
        assert word in str(info.value)


def test_choice_options_are_literals_so_the_cli_offers_choices():
    hints = typing.get_type_hints(make_model)
    for name in ("acks", "stops", "unclean_election"):
        assert typing.get_origin(hints[name]) is typing.Literal
    params = inspect.signature(make_model).parameters
    assert params["acks"].default == "none" and params["max_crashes"].default == 0


def test_all_options_off_is_the_classic_model_itself():
    model = make_model(generation="kip320", acks="none", max_crashes=0, unclean_election="off")
    assert model.fields.rows == () and model.generation == GENERATIONS["kip320"]
    assert model.init_states() == make_model().init_states() and len(model.init_states()[0]) == 14
    acked = make_model(acks="1")
    assert acked.fields.acked == 14 and len(acked.init_states()[0]) == 15


def test_acks_zero_adds_no_reachable_difference_and_promises_nothing():
    """acks=0: the producer is told nothing, so the acknowledgement field stays empty: the same
    number of states as the classic model, and the witness of an acknowledgement is vacuous."""
    baseline = isrcheck.check(classic(), properties=["StrongIsr"])
    model = classic(acks="0")
    result = isrcheck.check(model, properties=["StrongIsr", "AckedRecordNotLost", "RecordAcknowledged"])
    assert result.complete and result.violations == []
    assert result.distinct_states == baseline.distinct_states == 5_973
    assert result.vacuous == ["RecordAcknowledged"]


def test_durability_properties_need_their_option():
    with pytest.raises(ValueError, match="AckedRecordNotLost needs acks"):
        make_model(property_set="AckedRecordNotLost")
    with pytest.raises(ValueError, match="BrokerStoppedAndBack needs max_crashes"):
        make_model(acks="1", property_set="BrokerStoppedAndBack")


# -- states ---------------------------------------------------------------------------------------------

FULL = {"acks": "all", "max_crashes": 2, "stops": "all", "unclean_election": "any"}


def assert_plain(value) -> None:
    if isinstance(value, tuple):
        for item in value:
            assert_plain(item)
    else:
        assert type(value) is int, value


@settings(max_examples=40, deadline=None)
@given(
    generation=st.sampled_from(tuple(GENERATIONS)),
    acks=st.sampled_from(["0", "1", "all"]),
    stops=st.sampled_from(["all", "controlled", "crash", "lossy", "crash+lossy"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_walks_stay_well_typed_and_successors_deterministic(generation, acks, stops, seed):
    model = make_model(generation=generation, replicas=3, acks=acks, max_crashes=2, stops=stops,
                       property_set="TypeOk,OnlyTruncationShortensLogs")
    type_ok, only_truncation = model.properties()
    previous = None
    for state in walk(model, random.Random(seed), 40):
        assert_plain(state)
        assert type_ok.predicate(state), type_ok.describe(state)
        first = list(model.successors(state))
        assert list(model.successors(state)) == first
        for action, nxt in first:
            assert only_truncation.predicate(state, action, nxt), only_truncation.describe(state, action, nxt)
        previous = state
    assert previous is not None


def test_model_pickles_to_an_equal_model():
    model = classic(replicas=3, **FULL)
    copy = pickle.loads(pickle.dumps(model))
    for state in walk(model, random.Random(3), 60):
        assert list(copy.successors(state)) == list(model.successors(state))


def test_symmetry_is_sound_on_extended_states():
    """Relabelling replicas commutes with successors and keeps every property's verdict, with the
    stopped-broker mask and flushed offsets relabelled too."""
    model = classic(replicas=3, **FULL)
    props = [p for p in model.properties() if p.kind is not isrcheck.Kind.TRANSITION]
    for state in breadth_first(model, limit=600)[-300:]:
        rep = model.canonical(state)
        assert model.canonical(rep) == rep
        expected = {model.canonical(t) for _, t in model.successors(state)}
        verdicts = [p.predicate(state) for p in props]
        for other in model._symmetry.orbit(state):
            assert {model.canonical(t) for _, t in model.successors(other)} == expected
            assert [p.predicate(other) for p in props] == verdicts


def test_symmetry_keeps_verdict_and_trace_length_of_k10():
    options = {"acks": "all", "max_crashes": 1, "stops": "lossy"}
    plain = isrcheck.check(classic(**options), properties=["AckedRecordNotLost"])
    reduced = isrcheck.check(classic(**options), properties=["AckedRecordNotLost"], symmetry=True)
    assert len(plain.violations[0].trace) == len(reduced.violations[0].trace) == 10


# -- what the steps do -----------------------------------------------------------------------------------


def step_to(model, state, kind, **fields):
    for action, nxt in model.successors(state):
        if isinstance(action, kind) and all(getattr(action, k) == v for k, v in fields.items()):
            return action, nxt
    raise AssertionError(f"no {kind.__name__} {fields} from {model.state_view(state)}")


def led_with_one_record(model):
    from isrcheck.model.actions import BecomeLeader, ControllerElectLeader

    s = model.init_states()[0]
    _, s = step_to(model, s, ControllerElectLeader, leader=1)
    _, s = step_to(model, s, BecomeLeader, replica=1)
    _, s = step_to(model, s, LeaderWrite, leader=1)
    return s


def test_a_stopped_broker_does_nothing_until_it_restarts():
    model = classic(max_crashes=1, stops="crash")
    s = led_with_one_record(model)
    action, s = step_to(model, s, BrokerCrash, replica=1)
    view = model.state_view(s)
    assert view["stoppedBrokers"] == [1] and view["quorumState"]["leader"] is None
    assert view["replicaState"]["1"]["leader"] is None and len(view["replicaLog"]["1"]) == 1
    for action, _ in model.successors(s):
        assert getattr(action, "leader", None) != 1 or isinstance(action, BrokerRestart)
        assert getattr(action, "replica", None) != 1 or isinstance(action, BrokerRestart)
    _, back = step_to(model, s, BrokerRestart, replica=1)
    assert model.state_view(back)["stoppedBrokers"] == []


def test_a_power_failure_keeps_exactly_the_flushed_prefix():
    model = classic(max_crashes=1, stops="lossy")
    s = led_with_one_record(model)
    _, lost = step_to(model, s, BrokerCrash, replica=1)
    assert model.state_view(lost)["replicaLog"]["1"] == []
    _, flushed = step_to(model, s, FlushLog, replica=1, offset=1)
    _, kept = step_to(model, flushed, BrokerCrash, replica=1)
    assert len(model.state_view(kept)["replicaLog"]["1"]) == 1


def test_controlled_shutdown_moves_leadership_to_a_live_isr_member_first():
    model = classic(max_crashes=1, stops="all")  # "all" includes lossy stops, so flushes are tracked
    s = led_with_one_record(model)
    action, nxt = step_to(model, s, ControlledShutdown, replica=1)
    view = model.state_view(nxt)
    assert action.new_leader == 2 and view["quorumState"] == {"leaderEpoch": 1, "leader": 2, "isr": [2]}
    assert view["flushedOffset"]["1"] == 1  # a clean shutdown flushes the log


def test_acks_all_write_is_refused_below_min_insync_replicas():
    from isrcheck.model.actions import BecomeLeader, ControllerElectLeader, LeaderShrinkIsr

    model = classic(acks="all", min_insync_replicas=2)
    s = model.init_states()[0]
    _, s = step_to(model, s, ControllerElectLeader, leader=1)
    _, s = step_to(model, s, BecomeLeader, replica=1)
    assert any(isinstance(a, LeaderWrite) for a, _ in model.successors(s))
    _, s = step_to(model, s, LeaderShrinkIsr, leader=1, replica=2)
    assert not any(isinstance(a, LeaderWrite) for a, _ in model.successors(s))
