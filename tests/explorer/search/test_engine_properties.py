"""Properties of the engine itself, checked with Hypothesis rather than with hand-picked cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from isrcheck.explorer.search.fingerprint import encode, fingerprint
from isrcheck.explorer.stateful import find_violation
from isrcheck.explorer.traces.replay import evaluate, replay_actions

from isrcheck import check
from tests.fixtures.classic import GENERATIONS, classic
from tests.fixtures.models import Bits, Counters, TwoStarts
from tests.fixtures.paths import ROOT

# Nested state-like values: ints, strings, tuples and frozensets, as the contract allows.
scalars = st.integers(-(2**70), 2**70) | st.text(max_size=6)
values = st.recursive(
    scalars,
    lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=4).map(tuple) | st.frozensets(
        scalars | st.tuples(scalars, scalars), max_size=4),
    max_leaves=12,
)


def _walk(model, choices):
    """States reached by following ``choices`` (indices mod the successor count) from each start."""
    for state in model.init_states():
        yield state
        for c in choices:
            succ = list(model.successors(state))
            if not succ:
                break
            state = succ[c % len(succ)][1]
            yield state


def _replication_model(generation="kip101", replicas=3):
    return classic(generation=generation, replicas=replicas, log_size=3, max_records=3, max_leader_epoch=3)


@settings(max_examples=30)
@given(n=st.integers(1, 3), limit=st.integers(1, 4), choices=st.lists(st.integers(0, 10), max_size=12))
def test_counters_successors_never_mutate_their_input(n, limit, choices):
    model = Counters(n, limit)
    for state in _walk(model, choices):
        before = encode(state)
        list(model.successors(state))
        assert encode(state) == before


@settings(max_examples=30)
@given(n=st.integers(1, 5), choices=st.lists(st.integers(0, 10), max_size=12))
def test_bits_successors_never_mutate_their_input(n, choices):
    model = Bits(n)
    for state in _walk(model, choices):
        before = encode(state)
        list(model.successors(state))
        assert encode(state) == before


@pytest.mark.parametrize("generation", GENERATIONS)
def test_replication_successors_never_mutate_their_input(generation):
    model = _replication_model(generation)

    @settings(max_examples=15)
    @given(st.lists(st.integers(0, 50), max_size=25))
    def walk(choices):
        for state in _walk(model, choices):
            before = encode(state)
            first = list(model.successors(state))
            assert encode(state) == before
            assert list(model.successors(state)) == first  # deterministic order, too

    walk()


_CHILD = """
import json, sys
from isrcheck.explorer.search.fingerprint import fingerprint
def decode(v):
    if isinstance(v, dict):
        return frozenset(decode(x) for x in v["set"]) if "set" in v else tuple(decode(x) for x in v["tup"])
    return v
values = [decode(v) for v in json.load(sys.stdin)]
print(json.dumps([[fingerprint(v), fingerprint(v, 128)] for v in values]))
"""


def _to_json(value):
    if isinstance(value, frozenset):
        # the child rebuilds the frozenset in this order; a different order must not matter
        return {"set": [_to_json(v) for v in sorted(value, key=repr, reverse=True)]}
    if isinstance(value, tuple):
        return {"tup": [_to_json(v) for v in value]}
    return value


def _fingerprints_in_child(batch, seed):
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps([_to_json(v) for v in batch]),
                         capture_output=True, text=True, env=env, check=True, cwd=ROOT)
    return [tuple(pair) for pair in json.loads(out.stdout)]


@settings(max_examples=5, deadline=None)
@given(st.lists(values, min_size=1, max_size=40))
def test_fingerprints_are_equal_across_processes_with_different_hash_seeds(batch):
    here = [(fingerprint(v), fingerprint(v, 128)) for v in batch]
    assert _fingerprints_in_child(batch, 1) == here
    assert _fingerprints_in_child(batch, 2) == here


@settings(max_examples=100)
@given(values, values)
def test_fingerprint_separates_what_equality_separates(a, b):
    assert (encode(a) == encode(b)) == (a == b)


@settings(max_examples=50)
@given(n=st.integers(1, 4), limit=st.integers(1, 4), choices=st.lists(st.integers(0, 10), max_size=12))
def test_canonical_is_idempotent_and_properties_are_invariant_under_it(n, limit, choices):
    for model in (Counters(n, limit, bug_at=limit), Bits(n)):
        props = model.properties()
        for state in _walk(model, choices):
            canon = model.canonical(state)
            assert model.canonical(canon) == canon
            for p in props:
                if p.kind.value in ("always", "sometimes"):
                    assert p.predicate(canon) == p.predicate(state)


def test_replication_canonical_is_idempotent_and_properties_are_invariant_under_it():
    model = _replication_model("kip279", replicas=3)
    canonical = getattr(model, "canonical", None)
    if canonical is None:
        pytest.skip("the replication model has no canonical()")
    props = [p for p in model.properties() if p.kind.value in ("always", "sometimes")]

    @settings(max_examples=20)
    @given(st.lists(st.integers(0, 50), max_size=20))
    def walk(choices):
        for state in _walk(model, choices):
            canon = canonical(state)
            assert canonical(canon) == canon
            for p in props:
                assert p.predicate(canon) == p.predicate(state), p.name

    walk()


@pytest.mark.parametrize("model, prop", [(Counters(3, 4, bug_at=5), "SumBelowBug"), (Bits(3), "NeverClearBit0"),
                                         (TwoStarts(), "Not12")])
def test_a_shrunk_hypothesis_run_replays_to_the_same_violation(model, prop):
    found = find_violation(model, settings=settings(settings.default, max_examples=200, deadline=None))
    trace = replay_actions(model, found.actions, found.init_index)
    assert trace == found.violation.trace
    result = evaluate(model, trace, [prop])
    assert [(p, i) for p, i, _ in result.violated] == [(prop, len(trace))]
    # and the explorer finds the same property violated, no longer than Hypothesis's trace
    shortest = check(model, properties=[prop]).violation(prop)
    assert shortest is not None and len(shortest.trace) <= len(trace)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 4), limit=st.integers(1, 5))
def test_check_of_counters_matches_the_hand_formula(n, limit):
    result = check(Counters(n, limit))
    assert result.complete
    assert result.distinct_states == limit**n
    assert result.depth == n * (limit - 1) + 1
    assert result.generated_states == 1 + n * (limit - 1) * limit ** (n - 1)


def test_a_frozenset_and_a_tuple_tagged_like_one_encode_differently():
    # Found by this suite: an earlier encoding wrote frozensets as ('#set', ...) tuples.
    assert encode((frozenset({1}),)) != encode((("#set", 1),))
    assert encode((1, 2)) != encode(((1, 2),)) != encode(frozenset({1, 2}))
    assert encode(("{1}",)) != encode((frozenset({1}),))
    assert encode(((1,), frozenset())) != encode(((1,), ()))
    for value in [(1, (2, ("a", None)), b"x"), ((), ((),)), (frozenset({(1, 2), (3,)}), "s")]:
        assert eval(encode(value).decode().replace("{", "frozenset({").replace("}", "})")) == value
