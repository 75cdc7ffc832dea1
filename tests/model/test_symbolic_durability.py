"""The durability options in the symbolic relation (model/symbolic/durability.py) are the explicit
model's, and BMC finds the catalogue's durability violations at BFS's lengths.

Equivalence as in test_symbolic_equivalence.py: every reachable state of a small configuration of
each option set (the symbolic successors, every choice enumerated, equal the explicit successors as
sets of (action type, state)), seeded random-walk samples of the catalogue's own configurations,
and a few states where z3 itself enumerates every solution of ``Next(s, w)``.
"""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.explorer.symbolic.ops import BoundedZ3Ops, ConcreteOps
from isrcheck.explorer.symbolic.relation import concrete_successors, solver_successors
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic
from tests.fixtures.states import random_walk_sample, reachable
from tests.model.test_symbolic_equivalence import assert_same

SLOW = pytest.mark.slow

# The catalogue's configurations (model/scenarios/durability.py), 2 replicas, 2/2/2 bounds.
K2 = {"generation": "truncate-to-hw", "max_crashes": 2, "stops": "lossy"}
K8 = {"acks": "all", "max_crashes": 1, "stops": "crash", "unclean_election": "any"}
K8_HIGHEST = {**K8, "unclean_election": "highest-last-epoch"}
K9 = {"acks": "1"}
K10 = {"acks": "all", "max_crashes": 1, "stops": "lossy"}
K10_MIN_ISR_2 = {**K10, "min_insync_replicas": 2}
# Every option at once, on the lazy-truncation generation and 3 replicas (K6's flag included).
MIXED = {"generation": "kip320-first-try", "replicas": 3, "acks": "all", "min_insync_replicas": 2, "max_crashes": 1,
         "stops": "crash+lossy", "unclean_election": "any", "expand_before_epoch_start": True}

# All reachable states: (options, at least this many states). Smaller bounds where the catalogue's
# configuration has more than a few ten thousand states (its own states are sampled below).
EVERY_STATE = [
    pytest.param(K9, 5000, id="K9-acks-1"),
    pytest.param({**K8, "max_leader_epoch": 1}, 3000, id="K8-unclean-any-epochs-0..1"),
    pytest.param({**K8_HIGHEST, "max_leader_epoch": 1}, 3000, id="K8-unclean-highest-last-epoch-epochs-0..1",
                 marks=SLOW),
    pytest.param({**MIXED, "replicas": 2, "max_leader_epoch": 1, "log_size": 1}, 4000,
                 id="all-options-2-replicas-epochs-0..1-log-size-1", marks=SLOW),
    pytest.param({**K10, "max_leader_epoch": 1}, 14000, id="K10-lossy-epochs-0..1", marks=SLOW),
    pytest.param({**K2, "max_leader_epoch": 1}, 30000, id="K2-two-lossy-epochs-0..1", marks=SLOW),
]


@pytest.mark.parametrize("options,at_least", EVERY_STATE)
def test_every_reachable_state(options, at_least):
    model = classic(**options)
    sym = make_symbolic(model)
    ops = ConcreteOps()
    states = reachable(model)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == len(states) >= at_least


@pytest.mark.parametrize("options", [pytest.param(K10, id="K10"), pytest.param(K2, id="K2"),
                                     pytest.param(K10_MIN_ISR_2, id="K10-min-isr-2"),
                                     pytest.param(MIXED, id="mixed-3-replicas")])
def test_sample_of_catalogue_configuration(options):
    model = classic(**options)
    sym = make_symbolic(model)
    ops = ConcreteOps()
    states = random_walk_sample(model, 1000, seed=3)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == 1000


def test_z3_all_solutions_sample():
    model = classic(**MIXED)
    sym = make_symbolic(model)
    states = random_walk_sample(model, 8, seed=11)
    assert assert_same(model, sym, states, lambda s: solver_successors(sym, BoundedZ3Ops(), s)) == 8


def shortest(options: dict, prop: str, depth: int, **kw) -> int:
    result = bmc(make_symbolic(classic(**options)), depth=depth, properties=[prop], **kw)
    assert result.verdict == "violation", result
    assert result.violations[0].property == prop
    return len(result.violations[0].trace)


def test_k9_acks_1_six_states():
    assert shortest(K9, "AckedRecordNotLost", 8) == 6


def test_k8_unclean_election_nine_states():
    assert shortest(K8, "AckedRecordNotLost", 10) == 9


def test_k10_lossy_crash_ten_states():
    assert shortest(K10, "AckedRecordNotLost", 11) == 10


@SLOW
def test_k10_min_isr_2_thirteen_states():
    """About 3 s of CPU."""
    assert shortest(K10_MIN_ISR_2, "AckedRecordNotLost", 13) == 13


@SLOW
def test_k2_two_lossy_crashes_fourteen_states():
    """About 42 s of CPU (length 14 is a third of it; 203 s wall at load average 10)."""
    assert shortest(K2, "LogMatching", 14) == 14


@SLOW
def test_fixed_variant_has_no_violation_within_depth():
    """K8-fixed (unclean election off): nothing in the 9 states where K8 breaks."""
    result = bmc(make_symbolic(classic(**{**K8, "unclean_election": "off"})), depth=9,
                 properties=["AckedRecordNotLost"])
    assert result.verdict == "no violation" and result.depth == 9


def test_cli_bmc_durability_trace(capsys):
    status = main(["bmc", "classic", "--acks", "1", "--depth", "8", "--quiet"])
    out = capsys.readouterr().out
    assert status == 1
    assert "AckedRecordNotLost (invariant) violated in a trace of 6 states" in out


def test_proofs_encode_durability_options():
    """The unbounded encoding of K9 (acks=1) has the acknowledged ids as one array and the property."""
    sym = make_symbolic(classic(**K9), unbounded=True)
    assert sym.extras.records is None and "AckedRecordNotLost" in sym.properties()
