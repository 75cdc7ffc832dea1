"""The classic model as a contract citizen: validated options, immutable int/tuple states,
deterministic successors, picklable, readable actions and views."""

from __future__ import annotations

import inspect
import json
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from isrcheck.model import ClassicConfig, make_model
from isrcheck.model.actions import BecomeFollowerAndTruncate, ControllerElectLeader

from tests.fixtures.classic import GENERATIONS, classic

# the Hypothesis test's source names it random_walk (derandomized examples are seeded from the source)
from tests.fixtures.states import walk as random_walk

# -- configuration ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "names"),
    [
        ({"generation": "kip999"}, ["generation", "kip320"]),
        ({"replicas": 0}, ["replicas", "1 <= replicas"]),
        ({"replicas": True}, ["replicas", "int"]),
        ({"log_size": "2"}, ["log_size", "int"]),
        ({"max_records": 0}, ["max_records"]),
        ({"max_leader_epoch": -1}, ["max_leader_epoch"]),
        ({"log_size": 8, "max_records": 16, "max_leader_epoch": 16}, ["log_size", "lower"]),
        ({"property_set": "StrongIsr,Nope"}, ["property_set", "'Nope'", "StrongIsr"]),
        ({"property_set": ""}, ["property_set"]),
    ],
)
def test_bad_options_raise_value_error_naming_option_and_fix(options, names):
    with pytest.raises(ValueError) as info:
        make_model(**options)
    for name in names:
        assert name in str(info.value)


def test_make_model_options_are_keyword_only_simple_and_defaulted():
    for param in inspect.signature(make_model).parameters.values():
        assert param.kind is param.KEYWORD_ONLY
        assert param.default is not param.empty
        # None: a default chosen per family (min ISR, fencings: the factory's docstring), an int otherwise
        assert type(param.default) in (int, str, bool) or (param.default is None and param.annotation == "int | None")
    assert make_model().config == ClassicConfig(2, 2, 2, 2, "kip320")


# -- states and successors -------------------------------------------------------------------------


def assert_plain_value(value) -> None:
    """Only ints, tuples and frozensets (bool is an int subclass and not allowed either)."""
    if isinstance(value, tuple | frozenset):
        for item in value:
            assert_plain_value(item)
    else:
        assert type(value) is int, value


@settings(max_examples=60, deadline=None)
@given(
    generation=st.sampled_from(GENERATIONS),
    replicas=st.integers(1, 3),
    log_size=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_walks_keep_states_plain_typed_and_inputs_unmutated(generation, replicas, log_size, seed):
    model = make_model(generation=generation, replicas=replicas, log_size=log_size, property_set="TypeOk")
    [type_ok] = model.properties()
    for state in random_walk(model, random.Random(seed), 40):
        assert_plain_value(state)
        assert type_ok.predicate(state), type_ok.describe(state)
        snapshot = pickle.dumps(state)
        first = list(model.successors(state))
        assert pickle.dumps(state) == snapshot
        assert list(model.successors(state)) == first
        for action, nxt in first:
            assert nxt is not state
            assert hash(nxt) == hash(pickle.loads(pickle.dumps(nxt)))
            assert repr(action).startswith(type(action).__name__ + "(")


@pytest.mark.parametrize("generation", GENERATIONS)
def test_successors_are_identical_across_model_instances_and_pickling(generation):
    a = make_model(generation=generation, replicas=3)
    b = pickle.loads(pickle.dumps(make_model(generation=generation, replicas=3)))
    rng = random.Random(7)
    for state in random_walk(a, rng, 60):
        assert list(a.successors(state)) == list(b.successors(state))


def test_initial_state_is_the_spec_init():
    model = classic(replicas=3)
    [init] = model.init_states()
    view = model.state_view(init)
    assert view["replicaLog"] == {"1": [], "2": [], "3": []}
    assert view["replicaState"]["2"] == {"hw": 0, "leaderEpoch": -1, "leader": None, "isr": []}
    assert view["quorumState"] == {"leaderEpoch": -1, "leader": None, "isr": [1, 2, 3]}
    assert view["leaderAndIsrRequests"] == [] and view["nextRecordId"] == 0 and view["nextLeaderEpoch"] == 0


def test_state_view_is_json_friendly_and_reads_like_the_spec():
    model = classic(generation="kip279")
    state = model.init_states()[0]
    for wanted in (ControllerElectLeader, None):
        for action, nxt in model.successors(state):
            if wanted is None or isinstance(action, wanted):
                state = nxt
                break
    view = model.state_view(state)
    assert json.loads(json.dumps(view)) == view
    assert view["leaderAndIsrRequests"][0] == {"leaderEpoch": 0, "leader": 1, "isr": [1, 2]}


def test_action_repr_reads_like_the_protocol():
    action = BecomeFollowerAndTruncate(replica=2, leader=1, epoch=2, truncate_to=1)
    assert repr(action) == "BecomeFollowerAndTruncate(replica=2, leader=1, epoch=2, truncate_to=1)"
    assert action == BecomeFollowerAndTruncate(2, 1, 2, 1)
    assert pickle.loads(pickle.dumps(action)) == action


def test_leader_and_isr_requests_naming_no_leader_are_never_acted_on():
    """The spec's followers and leaders range over Replicas, so a request with leader None (sent
    when the controller removes the leader) changes no replica's state."""
    model = classic(generation="kip320")
    init = model.init_states()[0]
    elected = next(t for a, t in model.successors(init) if isinstance(a, ControllerElectLeader))
    removed = [t for a, t in model.successors(elected) if type(a).__name__ == "ControllerShrinkIsr"]
    leaderless = [t for t in removed if model.state_view(t)["quorumState"]["leader"] is None]
    assert leaderless
    for state in leaderless:
        for action, _ in model.successors(state):
            assert getattr(action, "epoch", None) != 1 or type(action).__name__.startswith("Controller")
