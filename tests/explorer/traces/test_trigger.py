"""A leads-to lasso marks the state where its trigger held and its target never holds after, in
the text trace and on the page (L1: the crash of the last ISR member leaves the partition offline)."""

from __future__ import annotations

from types import SimpleNamespace

from isrcheck.explorer.check import check
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import get_scenario
from isrcheck.explorer.traces.html.report import traces_of
from isrcheck.explorer.traces.text import render_violation
from isrcheck.explorer.traces.trigger import trigger_index


def l1():
    sc = get_scenario("L1")
    model = build_model(sc.model, dict(sc.options))
    return model, check(model, properties=list(sc.properties), **dict(sc.check_options)).violations[0]


def test_the_trigger_state_is_where_the_leader_went_offline_for_good():
    model, v = l1()
    index = trigger_index(model, v.property, v.kind, v.trace)
    assert index is not None and v.trace.steps[index].action.__class__.__name__ == "BrokerCrash"
    assert model.state_view(v.trace.states[index])["quorumState"]["leader"] is None
    assert all(model.state_view(s)["quorumState"]["leader"] is not None for s in v.trace.states[1:index])
    marked = [ln for ln in render_violation(model, v).splitlines() if "the trigger holds here" in ln]
    assert marked == [f"State {index + 1}: {v.trace.steps[index].action!r}   <- the loop starts here; "
                      "the trigger holds here, and the target never holds from here on"]
    assert traces_of(model, SimpleNamespace(violations=[v], examples={}))[0]["trigger"] == index


def test_other_kinds_have_no_trigger():
    sc = get_scenario("K1")
    model = build_model(sc.model, dict(sc.options))
    v = check(model, properties=list(sc.properties)).violations[0]
    assert trigger_index(model, v.property, v.kind, v.trace) is None
    assert "trigger" not in render_violation(model, v)
