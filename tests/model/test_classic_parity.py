"""Parity with TLC on hachikuji/kafka-specification (TLC's figures: docs/architecture.md).

Complete runs must give TLC's distinct-state counts and depths exactly (symmetry off; initial
states are depth 1). Violating runs are compared by the length of the shortest trace (states,
initial included), since TLC's distinct count at its first violation depends on its search order.
"""

from __future__ import annotations

import pytest

import isrcheck
from tests.fixtures.classic import GENERATIONS, classic, each_generation


def run(generation: str, replicas: int = 2, invariant: str = "StrongIsr", **options) -> isrcheck.CheckResult:
    model = classic(generation=generation, replicas=replicas, **options)
    return isrcheck.check(model, properties=[invariant], stop_at_first=True)


def assert_replays(model, trace) -> None:
    """Every step of the trace is a successor the model itself offers."""
    states = trace.states
    assert states[0] in model.init_states()
    for step, before in zip(trace.steps[1:], states, strict=False):
        assert (step.action, step.state) in list(model.successors(before))


# -- complete runs: exact counts -------------------------------------------------------------------

# Every generation at 2/2/2/2 is in one of the two: TLC's counts where StrongIsr holds; our own where
# TLC stops at the first violation.
HOLDS, BUGGY = each_generation(
    [("kip279", 9_027, 18), ("kip320-first-try", 8_429, 18), ("kip320", 5_973, 18)],
    [("truncate-to-hw", 10_131, 20), ("kip101", 9_045, 18)],
)


@pytest.mark.parametrize(("generation", "distinct", "depth"), HOLDS)
def test_strong_isr_holds_with_tlc_counts_at_two_replicas(generation, distinct, depth):
    result = run(generation)
    assert result.complete
    assert result.violations == []
    assert (result.distinct_states, result.depth) == (distinct, depth)


@pytest.mark.slow
def test_kip320_three_replicas_matches_tlc_737794_states_depth_26():
    result = run("kip320", replicas=3)
    assert result.complete
    assert result.violations == []
    assert (result.distinct_states, result.depth) == (737_794, 26)


@pytest.mark.parametrize(("generation", "distinct", "depth"), BUGGY)
def test_complete_state_space_of_buggy_generations_is_pinned(generation, distinct, depth):
    """TLC stops at the first violation here, so these are our own measured figures: a change
    means the step semantics changed."""
    model = classic(generation=generation, property_set="TypeOk")
    result = isrcheck.check(model, properties=["TypeOk"])
    assert result.complete and result.ok
    assert (result.distinct_states, result.depth) == (distinct, depth)


# -- violations: shortest traces -------------------------------------------------------------------


def test_truncate_to_hw_breaks_weak_isr_in_nine_states():
    result = run("truncate-to-hw", invariant="WeakIsr")
    [violation] = result.violations
    assert violation.property == "WeakIsr"
    assert len(violation.trace) == 9


def test_truncate_to_hw_loses_committed_record_after_immediate_election():
    """Bug K1 (KIP-101 scenario 1): truncating to the local HW on becoming follower."""
    result = run("truncate-to-hw")
    [violation] = result.violations
    assert violation.property == "StrongIsr"
    assert len(violation.trace) == 10
    assert_replays(classic(generation="truncate-to-hw"), violation.trace)


def test_kip101_truncation_loses_committed_record():
    """KIP-101's OffsetsForLeaderEpoch falls back to the follower's HW when the leader has no
    larger epoch (fast leader changes, KAFKA-6361): trace of 12 states as TLC."""
    result = run("kip101")
    [violation] = result.violations
    assert len(violation.trace) == 12
    actions = [type(a).__name__ for a in violation.trace.actions]
    assert actions[-1] == "BecomeFollowerAndTruncate"
    assert_replays(classic(generation="kip101"), violation.trace)


def test_kip279_truncating_against_stale_leader_loses_committed_record_with_three_replicas():
    """Bug K4: KIP-279 without epoch fencing fails StrongIsr only with 3 replicas (shortest: 11)."""
    assert run("kip279").violations == []
    result = run("kip279", replicas=3)
    [violation] = result.violations
    assert len(violation.trace) == 11
    assert_replays(classic(generation="kip279", replicas=3), violation.trace)


def test_kip320_first_try_lazy_truncation_loses_committed_record_with_three_replicas():
    """Bug K5: the rejected KIP-320 draft fails StrongIsr only with 3 replicas (shortest: 13)."""
    result = run("kip320-first-try", replicas=3)
    [violation] = result.violations
    assert len(violation.trace) == 13
    assert_replays(classic(generation="kip320-first-try", replicas=3), violation.trace)


def test_every_generation_fails_literal_leader_in_isr_in_the_initial_state():
    """The spec's LeaderInIsr is false at Init (leader None), as TLC reports."""
    for generation in GENERATIONS:
        model = classic(generation=generation)
        [violation] = isrcheck.check(model, properties=["LeaderInIsrLiteral"]).violations
        assert len(violation.trace) == 1
