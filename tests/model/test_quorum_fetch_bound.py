"""``--max-fetches``, the quorum model's bound on FetchRequests (a bound of the search, not a spec
constant): it only disables SendFetchRequest once spent, keeps every other state's shape, leaves the
two-majorities pitfall's trace as it is, and refuses the liveness properties with the reason. The
complete check of the spec's reconfiguration rule at those bounds is the catalogue's
Q-reconfig-one-at-a-time (tests/model/test_scenarios.py)."""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.registry import build_model

import isrcheck

TWO_AT_ONCE = {"voters": 3, "values": 1, "max_elections": 1, "max_reconfigs": 1, "reconfig_rule": "two-at-once"}


def quorum(**options):
    return build_model("quorum", options)


def fetches(model, state):
    return [t for a, t in model.successors(state) if a.name == "SendFetchRequest"]


def test_the_bound_only_counts_and_stops_fetches():
    free = quorum(max_reconfigs=1)
    bounded = quorum(max_reconfigs=1, max_fetches=1)
    init, counted = free.init_states()[0], bounded.init_states()[0]
    at = bounded.layout.fetches
    assert counted == init[:at] + (0,) + init[at:]  # the counter, and nothing else, is added
    assert not fetches(quorum(max_reconfigs=1, max_fetches=0), quorum(max_reconfigs=1, max_fetches=0).init_states()[0])
    # the same steps as without the bound, until the bound is spent
    assert [a for a, _ in free.successors(init)] == [a for a, _ in bounded.successors(counted)]
    first = fetches(bounded, counted)[0]
    assert first[at] == 1 and bounded.state_view(first)["_fetchCtr"] == 1
    assert fetches(free, first[:at] + first[at + 1:]) and not fetches(bounded, first)


def test_the_counter_sits_before_pre_votes_fetched_set_and_survives_symmetry():
    model = quorum(pre_vote=True, init_leader=True, max_fetches=2)
    state = model.init_states()[0]
    view = model.state_view(state)
    assert view["_fetchCtr"] == 0 and view["fetched"] == [2, 3]
    after = fetches(model, state)[0]
    assert model.canonical(after)[model.layout.fetches] == 1
    assert set(model.field_docs()) >= {"_fetchCtr", "fetched"}


def test_the_pitfall_at_the_fixed_forms_bounds_is_the_same_trace():
    # Q-reconfig-one-at-a-time checks the spec's rule with two fetches; the two-at-once rule breaks
    # LeaderHasAllAckedValues there with the very steps it takes without the bound (one fetch).
    free = isrcheck.check(quorum(**TWO_AT_ONCE), properties=["LeaderHasAllAckedValues"], workers=1)
    bounded = isrcheck.check(quorum(**TWO_AT_ONCE, max_fetches=2), properties=["LeaderHasAllAckedValues"], workers=1)
    steps = [repr(step.action) for step in free.violations[0].trace.steps]
    assert len(steps) == 9 and "ChangeVoters(1, epoch=1, remove 2 and 3: voters{1})" in steps
    assert [repr(step.action) for step in bounded.violations[0].trace.steps] == steps


def test_a_liveness_property_under_the_bound_is_refused_with_the_reason(capsys):
    assert main(["check", "quorum", "--max-reconfigs", "1", "--max-fetches", "2",
                 "--property", "ReconfigurationNotStuck"]) == 2
    err = capsys.readouterr().err
    assert "left out under --max-fetches" in err and "drop --max-fetches" in err and "StatesMatchRoles" in err
    assert main(["check", "quorum", "--max-fetches", "-1"]) == 2
    assert "max_fetches=-1: give 0 or more" in capsys.readouterr().err


def test_a_liveness_property_named_in_property_set_under_the_fetch_bound_says_why():
    with pytest.raises(UserError, match="left out under --max-fetches"):
        quorum(max_reconfigs=1, max_fetches=2, property_set="ValuesNotStuck").properties()
