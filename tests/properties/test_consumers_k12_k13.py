"""K12 and K13: what consumers are promised, and the fetch-response order that breaks it.

The properties are checked to be able to fail (hand-made steps and states), then K12 holds in the
fixed protocols (KIP-320 truncation on becoming follower, and truncation on fetch in the fixed
order) and K13 shows a consumer served an uncommitted record from a follower."""

from __future__ import annotations

import pytest
from isrcheck.model.actions import ConsumerFetch, FollowerUpdateHighWatermark, LeaderIncHighWatermark
from isrcheck.model.encoding.state import HW, LEADER

import isrcheck
from tests.fixtures.classic import classic

K12 = ["ConsistentRead", "ReadBelowHighWatermark", "RecordConsumed", "FollowerCanServe"]
K13 = {"log_size": 1, "max_records": 2, "max_leader_epoch": 1, "consumer_reads": "any"}


def props(model):
    return {p.name: p for p in model.properties()}


def reach(model, want):
    """The first state (BFS order) where ``want(state)`` holds."""
    seen = set(model.init_states())
    frontier = list(seen)
    while frontier:
        for s in frontier:
            if want(s):
                return s
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    raise AssertionError("not reachable")


def test_read_below_high_watermark_rejects_a_read_at_the_hw_or_of_another_record():
    model = classic(consumer_reads="any", property_set="all")
    prop = props(model)["ReadBelowHighWatermark"]
    b = model.layout.base[0]
    s = reach(model, lambda s: s[b + LEADER] == 0 and s[b + HW] == 1)
    assert prop.predicate(s, ConsumerFetch(1, 0, model.tables.logs.records[s[b]][0] // 3), s)
    assert not prop.predicate(s, ConsumerFetch(1, 1, 0), s)
    assert "at or above its high watermark 1" in prop.describe(s, ConsumerFetch(1, 1, 0), s)
    other = 1 - model.tables.logs.records[s[b]][0] // 3
    assert not prop.predicate(s, ConsumerFetch(1, 0, other), s)


def test_consistent_read_fails_when_the_leader_lacks_a_served_record_or_reads_conflict():
    model = classic(consumer_reads="leader", property_set="all")
    prop = props(model)["ConsistentRead"]
    served = model.ext.served
    s = reach(model, lambda s: s[served] != 0)
    assert prop.predicate(s)
    wrong = s[:served] + (3 - s[served],) + s[served + 1:]  # the other record id (ids 0, 1 -> values 1, 2)
    assert not prop.predicate(wrong) and "the established leader" in prop.describe(wrong)
    conflict = s[:served] + (model.tables.fields.served_conflict,) + s[served + 1:]
    assert not prop.predicate(conflict) and "different records" in prop.describe(conflict)


def test_leader_hw_monotone_flags_a_lowered_hw_in_the_same_epoch_only():
    model = classic(consumer_reads="leader", property_set="all")
    prop = props(model)["LeaderHighWatermarkMonotone"]
    b = model.layout.base[0]
    s = reach(model, lambda s: s[b + LEADER] == 0 and s[b + HW] == 1)
    lowered = s[: b + HW] + (0,) + s[b + HW + 1:]
    assert prop.predicate(lowered, LeaderIncHighWatermark(1, 1), s)
    assert not prop.predicate(s, LeaderIncHighWatermark(1, 1), lowered)
    assert "lowered its high watermark from 1 to 0" in prop.describe(s, None, lowered)


@pytest.mark.parametrize("truncation", ["on-become-follower", "on-fetch"])
def test_k12_holds_with_two_replicas(truncation):
    model = classic(consumer_reads="any", truncation=truncation)
    result = isrcheck.check(model, properties=K12 + ["StrongIsr", "LeaderHighWatermarkMonotone"])
    assert result.complete and result.ok, (result.violations, result.vacuous)


@pytest.mark.slow
@pytest.mark.parametrize(("truncation", "states"), [("on-become-follower", 299_409), ("on-fetch", 386_006)])
def test_k12_holds_with_three_replicas(truncation, states):
    model = classic(replicas=3, consumer_reads="any", truncation=truncation)
    result = isrcheck.check(model, properties=K12 + ["StrongIsr", "LeaderHighWatermarkMonotone"], symmetry=True)
    assert result.complete and result.ok, (result.violations, result.vacuous)
    assert result.distinct_states == states


def test_k13_a_consumer_reads_the_record_the_follower_is_about_to_truncate():
    model = classic(truncation="on-fetch-hw-first", **K13)
    result = isrcheck.check(model, properties=["ConsistentRead"])
    [v] = result.violations
    assert len(v.trace) == 12
    actions = v.trace.actions
    names = [type(a).__name__ for a in actions]
    assert names[-2:] == ["FollowerUpdateHighWatermark", "ConsumerFetch"]
    update, read = actions[-2], actions[-1]
    assert isinstance(update, FollowerUpdateHighWatermark) and read.replica == update.follower  # a follower served it
    follower_log = model.state_view(v.trace.last)["replicaLog"][str(read.replica)]
    leader_log = model.state_view(v.trace.last)["replicaLog"][str(update.leader)]
    assert follower_log[read.offset]["id"] == read.record_id != leader_log[read.offset]["id"]
    assert "established leader" in v.detail


def test_k13_fixed_order_serves_nothing_uncommitted_at_the_same_and_larger_bounds():
    for bounds in (K13, {"consumer_reads": "any"}):
        result = isrcheck.check(classic(truncation="on-fetch", **bounds), properties=K12 + ["StrongIsr"])
        assert result.complete and result.ok, (bounds, result.violations, result.vacuous)


def test_k13_needs_follower_reads():
    """Reads from the leader alone never see the follower's window: the hole is KIP-392's."""
    result = isrcheck.check(classic(truncation="on-fetch-hw-first", **{**K13, "consumer_reads": "leader"}),
                            properties=["ConsistentRead", "RecordConsumed"])
    assert result.complete and result.ok
