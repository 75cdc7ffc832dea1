"""Bounded model checking (``isrcheck bmc``): shortest traces at exactly BFS's lengths, every trace
replayed through the explicit model, encoding errors caught, bad input refused.

BFS lengths (``isrcheck.model.scenarios``, tests/model/test_scenarios.py): WeakIsr 9 and StrongIsr 10 with
truncate-to-hw, StrongIsr 12 with kip101 (2/2/2/2); StrongIsr 11 with kip279 and 13 with
kip320-first-try at 3 replicas.
"""

from __future__ import annotations

import json

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.explorer.symbolic.ops import BoundedZ3Ops, ConcreteOps
from isrcheck.explorer.symbolic.por import footprints, independent_pairs
from isrcheck.explorer.symbolic.relation import transition
from isrcheck.explorer.symbolic.result import EncodingError
from isrcheck.explorer.symbolic.symmetry import breaking
from isrcheck.explorer.traces.itf import read_itf
from isrcheck.explorer.traces.replay import load_and_replay
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic


def shortest(generation, replicas, prop, depth):
    result = bmc(make_symbolic(classic(generation=generation, replicas=replicas)), depth=depth, properties=[prop])
    assert result.verdict == "violation", result
    violation = result.violations[0]
    assert violation.property == prop
    return len(violation.trace)


def test_weak_isr_truncate_to_hw_9():
    assert shortest("truncate-to-hw", 2, "WeakIsr", 12) == 9


@pytest.mark.slow
def test_strong_isr_truncate_to_hw_10():
    assert shortest("truncate-to-hw", 2, "StrongIsr", 12) == 10


@pytest.mark.slow
def test_strong_isr_kip101_12():
    """About 9 s of CPU."""
    assert shortest("kip101", 2, "StrongIsr", 13) == 12


@pytest.mark.slow
def test_strong_isr_kip279_3_replicas_11():
    """K4: about 30 s of CPU (76 s with the former incremental solver; length 10 is most of it)."""
    assert shortest("kip279", 3, "StrongIsr", 12) == 11


def test_no_violation_on_kip320_within_depth():
    result = bmc(make_symbolic(classic(generation="kip320", replicas=2)), depth=7)
    assert result.verdict == "no violation" and result.depth == 7
    assert result.properties == ["WeakIsr", "StrongIsr", "LeaderInIsr"]


def test_depth_too_short_finds_nothing():
    result = bmc(make_symbolic(classic(generation="truncate-to-hw", replicas=2)), depth=8, properties=["WeakIsr"])
    assert result.verdict == "no violation" and not result.violations


def _broken(sym, label, mutate):
    steps = list(sym.steps())
    for i, step in enumerate(steps):
        if step.label == label:
            steps[i] = SymStep(label, lambda o, v, fn=step.fn: mutate(o, v, fn), step.params)
    sym._steps = steps
    return sym


def test_a_trace_that_does_not_replay_is_an_encoding_error():
    """A symbolic LeaderIncHighWatermark without its guard: the solver's trace raises a HW the
    explicit model never raises, and replay refuses it."""

    def unguarded(o, v, fn):
        _, nxt = fn(o, v)
        if nxt is None:
            nxt = v.copy()
        return o.true, nxt

    sym = _broken(make_symbolic(classic(generation="kip320", replicas=2)), "LeaderIncHighWatermark", unguarded)
    with pytest.raises(EncodingError, match="LeaderIncHighWatermark"):
        bmc(sym, depth=5, properties=["WeakIsr"])


def test_cli_bmc_trace_exports_replay(tmp_path, capsys):
    itf, reg = tmp_path / "t.itf.json", tmp_path / "test_pinned.py"
    status = main(["bmc", "classic", "--generation", "truncate-to-hw", "--depth", "10", "--invariant", "WeakIsr",
                   "--quiet", "--trace-json", str(itf), "--regression", str(reg)])
    out = capsys.readouterr().out
    assert status == 1
    assert "WeakIsr (invariant) violated in a trace of 9 states" in out
    assert "State 9: BecomeFollowerAndTruncate" in out
    model, replayed = load_and_replay(read_itf(itf))
    assert len(replayed.trace) == 9 and replayed.violates("WeakIsr")
    assert "ACTIONS = [" in reg.read_text()


def test_cli_bmc_json(capsys):
    status = main(["bmc", "classic", "--generation", "kip320", "--depth", "4", "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert data["verdict"] == "no violation" and data["depth"] == 4 and data["engine"] == "bmc"
    assert data["schema_version"] == 1  # docs/json.md
    assert len(data["solver_seconds"]) == 4


def test_cli_bmc_time_limit_is_exit_5(capsys):
    status = main(["bmc", "classic", "--generation", "kip320", "--replicas", "3", "--depth", "14",
                   "--timeout", "0.001", "--quiet"])
    assert status == 5
    assert "unknown" in capsys.readouterr().out


@pytest.mark.parametrize("argv,words", [
    (["--depth", "0"], "--depth must be at least 1"),
    (["--depth", "3", "--invariant", "RecordCommitted"], "no invariant RecordCommitted"),
    (["--depth", "3", "--timeout", "-1"], "argument --timeout: '-1' must be a positive number"),
    (["--depth", "3", "--progress-interval", "-1"], "must be a positive number"),
    (["--depth", "3", "--trace-json", "/nonexistent-dir/t.itf.json"], "--trace-json"),
])
def test_cli_bmc_bad_input(argv, words, capsys):
    assert main(["bmc", "classic", *argv]) == 2
    assert words in capsys.readouterr().err


def test_cli_kraft_is_not_refused_for_consumer_options(capsys):
    """A KRaft generation has its own symbolic form (tests/model/test_kraft_symbolic.py), not the
    classic family's refusal of consumer options."""
    assert main(["bmc", "classic", "--generation", "kraft-3.5", "--depth", "3", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "no violation" in out and "consumer" not in err and "Traceback" not in err


def test_cli_bmc_and_prove_truncation_on_fetch(capsys):
    """Truncation on fetch derives a generation; bmc and prove derive its relation (no code of its own)."""
    assert main(["bmc", "classic", "--truncation", "on-fetch-hw-first", "--depth", "5", "--quiet"]) == 0
    assert "no violation" in capsys.readouterr().out
    lemmas = ["--lemma", "LeaderNamedByItsEpoch", "--lemma", "QuorumIsLastRequest",
              "--lemma", "TrueLeaderIsrIsQuorumIsr", "--lemma", "QuorumIsrIsLastRequestUntilAdopted"]
    assert main(["prove", "classic", "--truncation", "on-fetch", "--invariant", "LeaderInIsr", *lemmas, "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("Proved: LeaderInIsr")


def test_library_refuses_unknown_property():
    with pytest.raises(UserError):
        bmc(make_symbolic(classic()), depth=2, properties=["Nope"])


@pytest.mark.parametrize("symmetry,incremental", [(True, False), (False, False), (True, True), (False, True)])
def test_every_solver_strategy_finds_the_same_shortest_length(symmetry, incremental):
    """Symmetry breaking and the per-length fresh solver change the search, never the answer."""
    sym = make_symbolic(classic(generation="truncate-to-hw", replicas=3))
    result = bmc(sym, depth=10, properties=["WeakIsr"], symmetry=symmetry, incremental=incremental)
    assert result.verdict == "violation" and len(result.violations[0].trace) == 9


def test_symmetry_breaking_in_the_initial_state_lets_only_replica_1_act():
    """Every replica is alike initially: of the first controller steps only those on replica 1
    (index 0) stay allowed, so the solver sees one of the three renamings of each trace."""
    model = classic(generation="kip320", replicas=3)
    sym = make_symbolic(model)
    ops = ConcreteOps()
    v = sym.encode(model.init_states()[0])
    params: list = []
    _, labels = transition(sym, ops, v, v, 0, params)
    allowed = {(label, p) for a, (label, p) in enumerate(zip(labels, params, strict=True))
               if breaking(sym, ops, v, a, labels, params)}
    assert len(labels) == 6  # concretely enabled: the controller's two steps on each replica
    assert allowed == {("ControllerElectLeader", (0,)), ("ControllerShrinkIsr", (0,))}


def test_partial_order_reduction_keeps_the_shortest_length():
    sym = make_symbolic(classic(generation="truncate-to-hw", replicas=3))
    with_por = bmc(sym, depth=10, properties=["WeakIsr"], por=True)
    without = bmc(sym, depth=10, properties=["WeakIsr"], por=False, symmetry=False)
    assert len(with_por.violations[0].trace) == len(without.violations[0].trace) == 9


def test_independent_steps_are_found():
    """ControllerElectLeader and a LeaderWrite touch disjoint variables; two writes do not (both
    take the next record id); a follower's fetch reads its leader's log, which a write changes."""
    sym = make_symbolic(classic(generation="kip320", replicas=2))
    ops = BoundedZ3Ops(width=sym.int_bits)
    params: list = []
    _, labels = transition(sym, ops, sym.variables(ops, "v"), sym.variables(ops, "w"), ops.step_var("a"), params)
    pairs = independent_pairs(footprints(sym, ops, sym.variables(ops, "f")))
    number = {(label, p): i for i, (label, p) in enumerate(zip(labels, params, strict=True))}

    def independent(a, b):
        x, y = sorted((number[a], number[b]))
        return y in pairs[x]

    assert independent(("ControllerElectLeader", (0,)), ("LeaderWrite", (1,)))
    assert not independent(("LeaderWrite", (0,)), ("LeaderWrite", (1,)))
    assert not independent(("LeaderWrite", (0,)), ("FollowerReplicate", (1, 0)))
