"""The consumer, fetch-truncation and rack options: validated up front, invisible when off, and a
well-behaved model when on (plain states, deterministic successors, picklable, a sound symmetry)."""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from isrcheck.model import make_model
from isrcheck.model.actions import AvailabilityZoneFailure, ConsumerFetch
from isrcheck.model.generations import GENERATIONS
from isrcheck.model.options import ConsumerOptions

import isrcheck
from tests.fixtures.classic import classic
from tests.fixtures.states import breadth_first, walk


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"consumer_reads": "followers"}, ["consumer_reads='followers'", "off, leader, any"]),
        ({"truncation": "lazy"}, ["truncation='lazy'", "on-fetch-hw-first"]),
        ({"generation": "kip279", "truncation": "on-fetch"}, ["truncation='on-fetch'", "generation 'kip320'"]),
        ({"azs": -1}, ["azs=-1", "0 <= azs"]),
        ({"azs": True}, ["azs must be an int"]),
        ({"placement": "naive"}, ["placement='naive'", "azs >= 1"]),
        ({"azs": 3, "placement": "random"}, ["placement='random'", "rack-aware, naive"]),
        ({"max_az_failures": 1}, ["max_az_failures=1", "azs >= 1"]),
        ({"azs": 2, "max_az_failures": 3}, ["max_az_failures=3", "0 <= max_az_failures <= 2"]),
        ({"property_set": "ConsistentRead"}, ["ConsistentRead needs", "consumer_reads"]),
    ],
)
def test_bad_options_name_the_option_and_the_fix(options, words):
    with pytest.raises(ValueError) as info:
        make_model(**options)
    for word in words:
        assert word in str(info.value)


def test_kip966_rule_accepts_az_failures_as_lossy_stops():
    make_model(replicas=3, azs=3, max_az_failures=1, kip966_unclean_recovery=True)
    with pytest.raises(ValueError, match="or max_az_failures >= 1"):
        make_model(kip966_unclean_recovery=True)


def test_options_off_give_the_classic_model_itself():
    """One model class: options off means no option field and the generation's own Next."""
    off = make_model(consumer_reads="off", truncation="on-become-follower", azs=0)
    assert off.fields.rows == () and off.generation == GENERATIONS["kip320"]
    assert off.init_states() == make_model().init_states() and len(off.init_states()[0]) == 14
    assert ConsumerOptions().is_off
    assert make_model(consumer_reads="leader").fields.served >= 0
    on_fetch = make_model(truncation="on-fetch")
    assert on_fetch.fields.rows == () and on_fetch.generation != GENERATIONS["kip320"]
    assert "FollowerTruncate" in on_fetch.generation.next


def test_placements():
    assert ConsumerOptions(azs=3).az_of(3) == (0, 1, 2)
    assert ConsumerOptions(azs=3, placement="naive").az_of(3) == (0, 0, 1)
    assert ConsumerOptions(azs=2, placement="naive").az_of(3) == (0, 0, 1)
    assert ConsumerOptions(azs=2).az_of(3) == (0, 1, 0)
    model = classic(replicas=3, azs=3, placement="naive")
    view = model.state_view(model.init_states()[0])
    assert view["racks"] == {"1": "az1", "2": "az1", "3": "az2"}


def test_follower_reads_add_no_state_in_kip320_but_leader_reads_do():
    """In KIP-320 a follower serves a prefix of what the leader can serve, so the ghost of what was
    served reaches the same values whoever served it; reads multiply the classic 5,973 states."""
    leader = isrcheck.check(classic(consumer_reads="leader"), properties=["ConsistentRead"])
    anyone = isrcheck.check(classic(consumer_reads="any"), properties=["ConsistentRead"])
    assert leader.complete and anyone.complete
    assert leader.distinct_states == anyone.distinct_states == 13_197


@settings(max_examples=30, deadline=None)
@given(
    reads=st.sampled_from(["leader", "any"]),
    truncation=st.sampled_from(["on-become-follower", "on-fetch", "on-fetch-hw-first"]),
    placement=st.sampled_from(["rack-aware", "naive"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_walks_stay_well_typed_and_deterministic(reads, truncation, placement, seed):
    model = make_model(replicas=3, acks="all", consumer_reads=reads, truncation=truncation, azs=2,
                       placement=placement, max_az_failures=2, max_crashes=1, stops="crash",
                       property_set="TypeOk,OnlyTruncationShortensLogs,ReadBelowHighWatermark")
    type_ok, only_truncation, below_hw = model.properties()
    for state in walk(model, random.Random(seed), 40):
        assert all(type(x) is int or type(x) is tuple for x in state)
        assert type_ok.predicate(state), type_ok.describe(state)
        first = list(model.successors(state))
        assert list(model.successors(state)) == first
        for action, nxt in first:
            assert only_truncation.predicate(state, action, nxt), only_truncation.describe(state, action, nxt)
            assert below_hw.predicate(state, action, nxt), below_hw.describe(state, action, nxt)


def test_stopped_brokers_serve_no_reads_and_take_no_steps():
    model = classic(replicas=3, consumer_reads="any", azs=3, max_az_failures=1, truncation="on-fetch-hw-first")
    dead_i = model.ext.dead
    for state in walk(model, random.Random(7), 200):
        for action, _ in model.successors(state):
            actor = getattr(action, "replica", None) if isinstance(action, ConsumerFetch) else getattr(
                action, "follower", None)
            if actor is not None and type(action).__name__ in ("ConsumerFetch", "FollowerUpdateHighWatermark"):
                assert not state[dead_i] >> (actor - 1) & 1


def test_model_pickles_to_an_equal_model():
    model = classic(replicas=3, acks="all", consumer_reads="any", truncation="on-fetch", azs=3,
                       placement="naive", max_az_failures=1)
    copy = pickle.loads(pickle.dumps(model))
    for state in walk(model, random.Random(3), 60):
        assert list(copy.successors(state)) == list(model.successors(state))


@pytest.mark.parametrize("placement", ["rack-aware", "naive"])
def test_symmetry_keeps_zones_and_commutes_with_successors(placement):
    model = classic(replicas=3, acks="all", consumer_reads="any", azs=3, placement=placement,
                       max_az_failures=1, truncation="on-fetch", property_set="all")
    perms = len(model._symmetry.orbit(model.init_states()[0]))
    assert perms == (6 if placement == "rack-aware" else 2)  # naive: only swapping the az1 pair
    props = [p for p in model.properties() if p.kind in (isrcheck.Kind.ALWAYS, isrcheck.Kind.SOMETIMES)]
    for state in breadth_first(model, limit=1500):
        expected = {model.canonical(t) for _, t in model.successors(state)}
        verdicts = [p.predicate(state) for p in props]
        for other in model._symmetry.orbit(state):
            assert {model.canonical(t) for _, t in model.successors(other)} == expected
            assert [p.predicate(other) for p in props] == verdicts


def test_az_failure_stops_the_whole_zone_at_once():
    model = classic(replicas=3, azs=3, placement="naive", max_az_failures=1)
    state = model.init_states()[0]
    fails = [(a, t) for a, t in model.successors(state) if isinstance(a, AvailabilityZoneFailure)]
    assert [a.brokers for a, _ in fails] == [(1, 2), (3,)]
    (a, t), _ = fails
    assert model.state_view(t)["stoppedBrokers"] == [1, 2] and a.epoch == 0
    assert model.state_view(t)["quorumState"]["isr"] == [3]
