"""The property catalogue: which properties hold in which generation, that every witness is
reached, and that failures are described by the values that failed them."""

from __future__ import annotations

import pytest

import isrcheck
from isrcheck import properties
from tests.fixtures.classic import GENERATIONS, classic, each_generation


@pytest.mark.parametrize("generation", GENERATIONS)
def test_type_ok_leader_in_isr_and_log_steps_hold_and_every_witness_is_reached(generation):
    names = [n for n in properties.DEFAULT if n not in ("WeakIsr", "StrongIsr")]
    model = classic(generation=generation, property_set=",".join([*names, "OnlyTruncationShortensLogs"]))
    result = isrcheck.check(model, stop_at_first=False)
    assert result.complete
    assert result.violations == []
    assert result.vacuous == []
    assert set(result.examples) == {
        "RecordCommitted",
        "NewLeaderElected",
        "TruncationHappened",
        "FollowerRejoinedIsr",
    }


@pytest.mark.parametrize(
    ("generation", "weak_trace"),
    each_generation([("truncate-to-hw", 9), ("kip101", 12), ("kip279", None), ("kip320-first-try", None),
                     ("kip320", None)]),
)
def test_weak_isr_fails_exactly_in_pre_kip279_generations(generation, weak_trace):
    result = isrcheck.check(classic(generation=generation), properties=["WeakIsr"])
    lengths = [len(v.trace) for v in result.violations]
    assert lengths == ([] if weak_trace is None else [weak_trace])


def test_kip320_satisfies_every_default_property_at_two_replicas():
    result = isrcheck.check(classic(generation="kip320"), stop_at_first=False)
    assert result.complete and result.violations == [] and result.vacuous == []
    assert result.distinct_states == 5_973


def test_strong_isr_failure_names_leader_member_and_offset():
    result = isrcheck.check(classic(generation="truncate-to-hw"), properties=["StrongIsr"])
    [violation] = result.violations
    assert "leader 1 (hw=1)" in violation.detail
    assert "quorum ISR member 2" in violation.detail
    assert "offset 0" in violation.detail


def test_literal_leader_in_isr_explains_the_leaderless_initial_state():
    model = classic(property_set="LeaderInIsrLiteral,LeaderInIsr")
    literal, meaningful = model.properties()
    [init] = model.init_states()
    assert not literal.predicate(init) and meaningful.predicate(init)
    assert "None" in literal.describe(init)


def test_type_ok_describes_a_malformed_state():
    model = classic(property_set="TypeOk")
    [type_ok] = model.properties()
    [init] = model.init_states()
    broken = (init[0], 99, *init[2:])
    assert not type_ok.predicate(broken)
    assert "replica 1 hw 99" in type_ok.describe(broken)


def test_selection_accepts_default_all_and_names():
    assert properties.parse_selection("default") == properties.DEFAULT
    assert set(properties.parse_selection("all")) == {n for n, e in properties.CATALOGUE.items() if not e.needs}
    assert properties.parse_selection("default,LeaderInIsrLiteral")[-1] == "LeaderInIsrLiteral"
