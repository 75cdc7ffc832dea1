"""The space-time (swimlane) view's data: one lane per replica or broker and one for the
controller, one event per step, LeaderAndIsr and metadata records as messages from the row that
sent them to the row that received them, fetches as arrows in their row."""

from __future__ import annotations

import pytest
from isrcheck.explorer.check import check
from isrcheck.explorer.errors import ContractError
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import get_scenario
from isrcheck.explorer.traces.html.report import swimlane_of

from tests.fixtures.models import Counters


def scenario_trace(scenario_id: str):
    sc = get_scenario(scenario_id)
    model = build_model(sc.model, dict(sc.options))
    return model, check(model, properties=list(sc.properties), **dict(sc.check_options)).violations[0].trace


def test_k4_requests_go_from_the_controller_to_the_step_that_applies_them():
    model, trace = scenario_trace("K4")
    swim = swimlane_of(model, trace)
    assert swim["lanes"] == ["replica 1", "replica 2", "replica 3", "controller"]
    events = swim["events"]
    assert events[0] is None and len(events) == len(trace)
    sent = {m["id"]: i for i, ev in enumerate(events) if ev for m in ev["send"]}
    assert sent == {"LeaderAndIsr 0": 1, "LeaderAndIsr 1": 2, "LeaderAndIsr 2": 3}
    assert all(m["from"] == "controller" for ev in events if ev for m in ev["send"])
    # The last step: replica 3 applies the late epoch-1 request, sent 8 steps earlier.
    assert events[-1]["lane"] == "replica 3" and events[-1]["receive"] == ["LeaderAndIsr 1"]
    fetch = next(ev for ev in events if ev and ev["arrows"])
    assert fetch["arrows"][0]["from"] == "replica 1" and fetch["arrows"][0]["to"] in ("replica 3", "controller")


def test_k7_metadata_records_are_messages_applied_by_brokers():
    model, trace = scenario_trace("K7")
    swim = swimlane_of(model, trace)
    assert swim["lanes"] == ["broker 1", "broker 2", "broker 3", "controller"]
    by_step = {repr(step.action).split("(")[0]: ev for step, ev in zip(trace.steps, swim["events"], strict=True)}
    assert by_step["FenceBroker"]["lane"] == "controller" and by_step["FenceBroker"]["send"][0]["id"] == "metadata 1"
    assert by_step["ReceiveMetadataUpdate"]["receive"] == ["metadata 1"]
    assert by_step["SendAlterPartitionRequest"]["send"][0]["id"] == "AlterPartition 1"
    assert "AlterPartition 1" in by_step["ReceiveAlterPartitionRequest"]["receive"]
    assert by_step["Fetch"]["arrows"] == [{"from": "broker 1", "to": "broker 2", "label": "fetch @0: ok"}]


def test_a_lane_not_declared_is_a_contract_error_and_models_without_the_hooks_have_no_view():
    model, trace = scenario_trace("K1")

    class Broken:
        def __getattr__(self, name):
            return getattr(model, name)

        def swimlane(self, action, before, after):
            return {"lane": "replica 9", "label": "x"}

    with pytest.raises(ContractError, match="replica 9"):
        swimlane_of(Broken(), trace)
    counters = Counters(n=1, limit=2)
    assert swimlane_of(counters, check(counters).examples["AllAtLimit"]) is None
