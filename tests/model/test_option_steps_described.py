"""The options' steps (``model/steps/failures.py``, ``consumers.py``) are written once, like the
classic steps: the generated Python successor function and the z3 relation both read the one
description, so one edit reaches both, and nothing else holds a copy of a step.

The successors themselves are pinned elsewhere (``test_successor_digest.py``: the digests recorded
from the hand-written closures; ``test_symbolic_durability.py``: z3 against the explicit model).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from isrcheck.explorer.symbolic.ops import ConcreteOps
from isrcheck.explorer.symbolic.relation import concrete_successors
from isrcheck.model.factory import make_model
from isrcheck.model.steps.described import OPTION_STEPS, StepOptions, option_step_names
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.states import random_walk_sample
from tests.model.test_symbolic_equivalence import assert_same, explicit_successors

# K8's options (model/scenarios/durability.py) at a smaller epoch bound: stops, restarts, unclean election.
K8 = {"acks": "all", "max_crashes": 1, "stops": "crash", "unclean_election": "any", "max_leader_epoch": 1}


def test_every_option_step_has_a_description_and_an_action_table() -> None:
    every = StepOptions(max_crashes=1, stop_kinds=("controlled", "crash", "lossy"), unclean="any",
                        consumer_reads="any", max_az_failures=1, az_of=(0, 1))
    assert set(option_step_names(every)) == set(OPTION_STEPS)
    actions = make_model(max_crashes=1, unclean_election="any", consumer_reads="any").tables.actions
    for d in OPTION_STEPS.values():
        assert hasattr(actions, d.acts), f"{d.name} emits from a table ActionTable lacks: {d.acts}"


def _restart_at_current_epoch(x: Any) -> None:
    """BrokerRestart with one rule changed: the broker comes back at the controller's current
    epoch (so it adopts only later requests, never the current one)."""
    for r in x.replicas("r"):
        x.require(x.has(x.stopped, r))
        x.put("ep", r, x.ite(x.nreq >= 1, x.nreq - 1, x.ep(r)))
        x.put("stopped", None, x.without(x.stopped, r))
        x.emit(r)


def test_one_edit_of_an_option_step_reaches_python_and_z3(monkeypatch) -> None:
    before = make_model(**K8)
    monkeypatch.setitem(OPTION_STEPS, "BrokerRestart", replace(OPTION_STEPS["BrokerRestart"],
                                                                fn=_restart_at_current_epoch))
    after = make_model(**K8)
    states = random_walk_sample(after, 300, seed=5)
    changed = [s for s in states if explicit_successors(before, s) != explicit_successors(after, s)]
    assert changed, "the edited description did not reach the generated successor function"
    sym, ops = make_symbolic(after), ConcreteOps()
    assert assert_same(after, sym, states, lambda s: concrete_successors(sym, s, ops)) == 300


def test_each_option_step_is_listed_once_for_every_combination_of_options() -> None:
    # With crash stops and zone failures FlushLog was listed twice: every flush successor generated
    # twice (the same states, so counts and traces hid it).
    import itertools

    kinds = [(), ("crash",), ("lossy",), ("crash", "lossy"), ("controlled",), ("controlled", "crash")]
    for crashes, stop_kinds, azs, unclean, reads in itertools.product((0, 1), kinds, (0, 1), ("off", "any"),
                                                                      ("off", "any")):
        opt = StepOptions(max_crashes=crashes, stop_kinds=stop_kinds, unclean=unclean, consumer_reads=reads,
                          max_az_failures=azs, az_of=(0, 1) if azs else ())
        names = option_step_names(opt)
        assert len(names) == len(set(names)), (opt, names)


def test_updates_made_before_a_case_split_are_refused_not_dropped(monkeypatch) -> None:
    # z3's reader keeps updates made before x.cases/x.replicas; the Python writer starts each branch
    # afresh: rather than two readings that differ, such a description is refused when generated.
    def flush_with_update_before_split(x: Any) -> None:
        x.put("crashes", None, 0)
        for _ in x.cases("kind", ("only",)):
            x.emit()

    monkeypatch.setitem(OPTION_STEPS, "FlushLog", replace(OPTION_STEPS["FlushLog"], fn=flush_with_update_before_split))
    with pytest.raises(AssertionError, match="before the split 'kind'"):
        make_model(max_crashes=1, stops="lossy")
