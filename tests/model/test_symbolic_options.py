"""The options that ``bmc`` encodes beyond acks, crash and lossy stops and unclean election (issue
26): z3 reads their steps from the one description (``model/steps/failures.py``), so its successors
equal the explicit ones on every reachable state of a small configuration, and BMC gives the
catalogue's answers (``model/scenarios/durability.py``).

Small bounds on purpose (log size 1, epochs 0..1): each configuration costs about a second.
"""

from __future__ import annotations

from collections import Counter

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.explorer.symbolic.ops import ConcreteOps
from isrcheck.explorer.symbolic.relation import concrete_successors
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic
from tests.fixtures.states import random_walk_sample, reachable
from tests.model.test_symbolic_equivalence import assert_same

SMALL = {"log_size": 1, "max_leader_epoch": 1}

# KIP-966's rule reaches three steps: a lossy stop beside plain crashes (its own removal: below,
# with every kind of stop), a lossy stop alone (the sole ISR member leaves too) and unclean election
# (an empty ISR counts as "every member down").
KIP966_LOSSY = {**SMALL, "generation": "kip101", "max_crashes": 1, "stops": "lossy", "acks": "1",
                "unclean_election": "highest-last-epoch", "kip966_unclean_recovery": True}
# Controlled shutdown beside the other kinds (the default --stops all), unclean election and KIP-966's
# rule: every removal (not involved, the leader with each new leader, an ISR member) and the flush on
# the way down.
CONTROLLED_ALL = {**SMALL, "max_crashes": 1, "stops": "all", "unclean_election": "any", "kip966_unclean_recovery": True}
CONTROLLED_3 = {**SMALL, "replicas": 3, "max_records": 1, "max_crashes": 1, "stops": "controlled"}
# Zone failures: one zone holding both replicas (every subset of it still running goes down; the
# ISR's sole survivor chosen), with KIP-966's rule (the ISR emptied instead); two zones beside crash
# stops (FlushLog comes from both options, one step).
ZONE_1 = {**SMALL, "max_records": 1, "acks": "all", "azs": 1, "max_az_failures": 1}
ZONE_1_KIP966 = {**ZONE_1, "kip966_unclean_recovery": True}
ZONES_2_CRASH = {**SMALL, "max_records": 1, "acks": "1", "azs": 2, "max_az_failures": 1, "max_crashes": 1,
                 "stops": "crash"}
# The AZ scenarios (model/scenarios/consumers.py) at their catalogue bounds.
AZ = {"generation": "kip320", "replicas": 3, "log_size": 1, "max_records": 1, "max_leader_epoch": 2, "acks": "all",
      "min_insync_replicas": 2, "azs": 3, "max_az_failures": 1, "kip966_unclean_recovery": True}
# K10-fixed (model/scenarios/durability.py) at its catalogue bounds.
K10_FIXED = {"acks": "all", "min_insync_replicas": 2, "max_crashes": 1, "stops": "lossy",
             "kip966_unclean_recovery": True}


@pytest.mark.parametrize("options,at_least", [
    pytest.param(KIP966_LOSSY, 3000, id="kip966-lossy-unclean-highest-acks-1"),
    pytest.param(CONTROLLED_ALL, 3000, id="controlled+crash+lossy-unclean-any-kip966"),
    pytest.param(ZONE_1, 1000, id="one-zone-fails"),
    pytest.param(ZONE_1_KIP966, 900, id="one-zone-fails-kip966"),
])
def test_every_reachable_state(options: dict, at_least: int) -> None:
    model = classic(**options)
    sym, ops = make_symbolic(model), ConcreteOps()
    states = reachable(model)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == len(states) >= at_least


def test_two_zones_and_crashes_sample() -> None:
    """Every state of ZONES_2_CRASH is 5,977 states (equal too; 1.7 s): a sample."""
    model = classic(**ZONES_2_CRASH)
    sym, ops = make_symbolic(model), ConcreteOps()
    states = random_walk_sample(model, 500, seed=3)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == 500


def test_k10_fixed_clean_where_the_rule_less_form_breaks() -> None:
    """K10-min-isr-2 (the same options without KIP-966's rule) loses an acknowledged record in 13
    states (tests/model/test_symbolic_durability.py); with the rule nothing within 13. About 2 s of CPU."""
    result = bmc(make_symbolic(classic(**K10_FIXED)), depth=13, properties=["AckedRecordNotLost"])
    assert result.verdict == "no violation" and result.depth == 13


def test_cli_bmc_accepts_kip966(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bmc", "classic", "--max-crashes", "1", "--stops", "lossy", "--kip966-unclean-recovery",
                   "--depth", "3", "--quiet"])
    assert status == 0, capsys.readouterr().err


def test_controlled_shutdown_3_replicas_sample() -> None:
    """At 3 replicas a leader's controlled shutdown picks among the other running ISR members
    (one z3 instance each); every state of this configuration is 34,492 states, so a sample."""
    model = classic(**CONTROLLED_3)
    sym, ops = make_symbolic(model), ConcreteOps()
    states = random_walk_sample(model, 400, seed=7)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == 400


def test_controlled_shutdown_bmc_matches_bfs() -> None:
    """acks=1 with controlled shutdowns: BFS's shortest loss of an acknowledged record is 6 states
    (K9's); BMC's too, and its trace replays through the explicit model."""
    result = bmc(make_symbolic(classic(acks="1", max_crashes=1, stops="controlled")), depth=6,
                 properties=["AckedRecordNotLost"])
    assert result.verdict == "violation" and len(result.violations[0].trace) == 6


def test_az_naive_nine_states() -> None:
    """AZ-naive loses an acknowledged record in 9 states, as BFS finds (its replicas sit in
    different zones: no symmetry breaking). AZ-rack-aware's clean run to 9 is in docs/consumers.md."""
    sym = make_symbolic(classic(**AZ, placement="naive"))
    assert sym.symmetric_replicas == 0
    result = bmc(sym, depth=9, properties=["AckedRecordSurvives"])
    assert result.verdict == "violation" and len(result.violations[0].trace) == 9
    assert type(result.violations[0].trace.steps[-1].action).__name__ == "AvailabilityZoneFailure"


# Consumers: reads from any replica (KIP-392) and, beside crash stops, from leaders only; K13's
# hw-first truncation on fetch. Two replicas serving the same record at one offset give the same
# successor twice (two actions), so successors are compared as multisets of (action type, state).
CONSUMERS = [
    pytest.param({"consumer_reads": "any", "log_size": 1, "max_leader_epoch": 1}, 400, id="reads-any"),
    pytest.param({"consumer_reads": "leader", "log_size": 1, "max_leader_epoch": 1, "max_crashes": 1,
                  "stops": "crash"}, 1500, id="reads-leader-crashes"),
    pytest.param({"consumer_reads": "any", "log_size": 1, "max_records": 2, "max_leader_epoch": 1,
                  "truncation": "on-fetch-hw-first"}, 500, id="reads-any-K13-truncation"),
]
K13 = {"generation": "kip320", "replicas": 2, "log_size": 1, "max_records": 2, "max_leader_epoch": 1,
       "consumer_reads": "any", "truncation": "on-fetch-hw-first"}


@pytest.mark.parametrize("options,at_least", CONSUMERS)
def test_consumer_fetch_every_reachable_state(options: dict, at_least: int) -> None:
    model = classic(**options)
    sym, ops = make_symbolic(model), ConcreteOps()
    states = reachable(model)
    assert len(states) >= at_least
    for s in states:
        want = Counter((type(a).__name__, t) for a, t in model.successors(s))
        assert Counter(concrete_successors(sym, s, ops)) == want, f"from {s}"


def test_k13_twelve_states() -> None:
    """K13 serves a record no committed log holds in 12 states, as BFS finds (K13-fixed's clean run
    to 12 is in docs/consumers.md)."""
    result = bmc(make_symbolic(classic(**K13)), depth=12, properties=["ConsistentRead"])
    assert result.verdict == "violation" and len(result.violations[0].trace) == 12
    assert type(result.violations[0].trace.steps[-1].action).__name__ == "ConsumerFetch"


# prove reads the same descriptions without bounds (tests/model/test_symbolic_options_unbounded.py
# checks that reading); LeaderInIsr keeps with every option at once, with the stop-aware lemmas.
EVERY_OPTION = ["--max-crashes", "1", "--stops", "all", "--unclean-election", "any", "--kip966-unclean-recovery",
                "--acks", "all", "--min-insync-replicas", "2", "--consumer-reads", "any", "--azs", "2",
                "--max-az-failures", "1", "--expand-before-epoch-start"]
LEADER_IN_ISR_LEMMAS = ["LeaderNamedByItsEpoch", "QuorumIsLastRequest", "TrueLeaderIsrIsQuorumIsr",
                        "QuorumIsrIsLastRequestUntilAdopted"]


def _lemma_flags(names: list[str]) -> list[str]:
    return [x for name in names for x in ("--lemma", name)]


def test_prove_leader_in_isr_with_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    """Proved with StoppedBrokerLeadsNothing; without it a counterexample to induction: a stopped
    broker that still names a leader restarts onto an epoch whose request named another (about 1 s
    CPU each, docs/proofs.md)."""
    argv = ["prove", "classic", "--generation", "kip320", "--replicas", "2", *EVERY_OPTION,
            "--invariant", "LeaderInIsr", *_lemma_flags(LEADER_IN_ISR_LEMMAS), "--quiet"]
    assert main([*argv, "--lemma", "StoppedBrokerLeadsNothing"]) == 0
    assert capsys.readouterr().out.startswith("Proved: LeaderInIsr")
    assert main(argv) == 8
    out = capsys.readouterr().out
    assert "Counterexample to induction: LeaderNamedByItsEpoch breaks" in out and "State 2: BrokerRestart(" in out
    assert "served.0 = " in out and "stoppedBrokers = [" in out  # the option fields, decoded


def test_prove_acked_record_not_lost_gives_a_replayed_cti(capsys: pytest.CaptureFixture[str]) -> None:
    """A property over the unbounded array of acknowledged ids gives a counterexample to induction
    that decodes and replays through the explicit model with the same options; without lemmas it is
    a lemma gap, not K9 itself (docs/proofs.md). ConsistentRead's over the served offsets is in
    docs/proofs.md (1.6 s alone, up to 27 s of solver search after other proofs in one process)."""
    assert main(["prove", "classic", "--generation", "kip320", "--replicas", "2", "--acks", "1",
                 "--invariant", "AckedRecordNotLost", "--quiet"]) == 8
    out = capsys.readouterr().out
    assert "Counterexample to induction: AckedRecordNotLost breaks" in out and "ackedRecords = [" in out
