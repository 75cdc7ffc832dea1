"""``isrcheck prove``: induction over the unbounded encoding, Houdini, CTIs as replayed traces.

The CI proofs: LeaderInIsr is inductive at 3 replicas for KIP-320 with four protocol lemmas and
three more about epochs; the same lemma set fails on KIP-279 with a counterexample to induction in
which a follower on an older leader epoch fetches a record of a newer epoch (the first half of the
K4 story, docs/proofs.md). StrongIsr is inductive for KIP-320 at 2 replicas with 21 lemmas and at
3 replicas with 22 (a slow test, with WeakIsr); the same lemmas fail on KIP-279, where a
follower on a stale epoch fetches across epochs. WeakIsr is inductive with the same 21 lemmas (the
truncation offset's hinted quantifier instances, whose soundness a test checks, make its
``BecomeFollowerAndTruncate`` query cheap); before KIP-320 they fail on the same stale follower.
"""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.symbolic.induction import prove
from isrcheck.explorer.symbolic.ops import ConcreteOps
from isrcheck.model.symbolic import make_symbolic
from isrcheck.model.symbolic.lemmas import ISR_PROOF_LEMMAS, ISR_PROOF_LEMMAS_3

from tests.fixtures.classic import classic
from tests.fixtures.states import reachable, short_walks

LEMMAS = ["LeaderNamedByItsEpoch", "QuorumIsLastRequest", "TrueLeaderIsrIsQuorumIsr",
          "QuorumIsrIsLastRequestUntilAdopted", "RecordsWithinReplicaEpoch", "FollowerEpochAtMostLeader",
          "HighWatermarkWithinLog"]
LEMMA_FLAGS = [x for name in LEMMAS for x in ("--lemma", name)]
# StrongIsr's lemmas (docs/proofs.md), in the order they are checked.
STRONG_ISR_LEMMAS = list(ISR_PROOF_LEMMAS)
STRONG_ISR_FLAGS = [x for name in STRONG_ISR_LEMMAS for x in ("--lemma", name)]


def test_leader_in_isr_proved_for_kip320_at_3_replicas(capsys):
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "3", "--invariant", "LeaderInIsr",
                   *LEMMA_FLAGS, "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("Proved: LeaderInIsr")


def test_same_lemmas_fail_on_kip279_with_a_k4_like_cti(capsys):
    status = main(["prove", "classic", "--generation", "kip279", "--replicas", "3", "--invariant", "LeaderInIsr",
                   *LEMMA_FLAGS, "--quiet"])
    out = capsys.readouterr().out
    assert status == 8, out
    assert "Counterexample to induction: RecordsWithinReplicaEpoch breaks" in out
    assert "State 2: FollowerReplicate(" in out


def test_strong_isr_proved_for_kip320_at_2_replicas(capsys):
    """The unbounded proof of StrongIsr (about 5 s CPU): every lemma and the target are preserved."""
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "2", "--invariant", "StrongIsr",
                   *STRONG_ISR_FLAGS, "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("Proved: StrongIsr")


def test_weak_isr_proved_for_kip320_at_2_replicas(capsys):
    """WeakIsr (the leader's *cached* ISR holds its records below its HW) with StrongIsr's 21
    lemmas and no more (about 10 s CPU for both targets): the truncation offset's hints let z3 see
    that a cached-ISR member truncates no lower than its leader's HW (docs/proofs.md)."""
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "2", "--invariant", "StrongIsr",
                   "--invariant", "WeakIsr", *STRONG_ISR_FLAGS, "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("Proved: StrongIsr, WeakIsr")


@pytest.mark.parametrize("generation", ["kip279", "kip101", "truncate-to-hw"])
def test_weak_isr_lemmas_fail_before_kip320_where_a_stale_follower_fetches(generation, capsys):
    """Without KIP-320's fenced fetch the same lemmas are not inductive: a follower on an older
    epoch than its leader appends a record of an older epoch after one of a newer epoch (WeakIsr
    itself is violated for truncate-to-hw and kip101 at 2 replicas: no lemma could prove it)."""
    status = main(["prove", "classic", "--generation", generation, "--replicas", "2", "--invariant", "WeakIsr",
                   *STRONG_ISR_FLAGS, "--quiet"])
    out = capsys.readouterr().out
    assert status == 8, out
    assert "Counterexample to induction: RecordEpochsSorted breaks" in out
    assert "State 2: FollowerReplicate(" in out


def test_truncation_offset_hints_are_implied():
    """The hinted quantifier instances of ``last_such`` follow from its definition without them,
    so the hints change the solver's search, not the transition relation."""
    import z3
    from isrcheck.explorer.symbolic.ops import UnboundedZ3Ops

    ops = UnboundedZ3Ops()
    a, b = ops.int_array("a"), ops.int_array("b")
    hi, h, g = z3.Ints("hi h g")
    pred = lambda k: ops.sel(a, k) == ops.sel(b, k)  # noqa: E731
    x = ops.last_such(hi, pred, hints=(h, g))
    hinted = z3.And(*ops.take_side())
    y = ops.last_such(hi, pred)
    plain = z3.And(*ops.take_side())
    solver = z3.Solver()
    solver.add(plain, x == y, z3.Not(hinted))
    assert solver.check() == z3.unsat


def test_strong_isr_lemmas_fail_on_kip279_where_a_stale_follower_fetches_across_epochs(capsys):
    """KIP-279's fetch carries no leader epoch: a follower still on epoch 1 fetches from a leader of
    epoch 2 and appends to a log that diverged from the leader's (docs/proofs.md)."""
    status = main(["prove", "classic", "--generation", "kip279", "--replicas", "2", "--invariant", "StrongIsr",
                   *STRONG_ISR_FLAGS, "--quiet"])
    out = capsys.readouterr().out
    assert status == 8, out
    assert "Counterexample to induction: RecordEpochsSorted breaks" in out
    assert "State 2: FollowerReplicate(" in out


def test_houdini_drops_a_false_user_lemma(capsys):
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "2", "--invariant", "LeaderInIsr",
                   *LEMMA_FLAGS[:8], "--lemma", "HighWatermarkWithinLog", "--lemmas", "docs/examples/lemmas.py",
                   "--houdini", "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Houdini dropped (not inductive relative to the rest): NoRecordIsEverWritten." in out
    assert "LeaderHwWithinItsLog" in out.splitlines()[0]


def test_houdini_drops_a_lemma_stated_too_narrowly():
    """HW <= log end stated for leaders only is not inductive: a follower's HW becomes a leader's."""
    sym = make_symbolic(classic(generation="kip320", replicas=2), unbounded=True)
    import importlib.util

    spec = importlib.util.spec_from_file_location("example_lemmas", "docs/examples/lemmas.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lemmas = {name: sym.lemmas()[name] for name in LEMMAS[:4]}
    lemmas["LeaderHwWithinItsLog"] = module.LEMMAS["LeaderHwWithinItsLog"]
    result = prove(sym, properties=["LeaderInIsr"], lemmas=lemmas, houdini=True)
    assert result.verdict == "proved" and result.stats["dropped"] == ["LeaderHwWithinItsLog"]


def test_without_lemmas_leader_in_isr_is_not_inductive():
    sym = make_symbolic(classic(generation="kip320", replicas=2), unbounded=True)
    result = prove(sym, properties=["LeaderInIsr"])
    assert result.verdict == "counterexample to induction"
    assert result.cti.property == "LeaderInIsr" and len(result.cti.trace) == 2


@pytest.mark.slow
def test_two_induction_also_proves_it():
    sym = make_symbolic(classic(generation="kip320", replicas=2), unbounded=True)
    lemmas = {name: sym.lemmas()[name] for name in LEMMAS[:4]}
    assert prove(sym, properties=["LeaderInIsr"], lemmas=lemmas, k=2).verdict == "proved"


@pytest.mark.slow
def test_builtin_lemmas_hold_on_every_reachable_kip320_state_and_some_fail_on_kip279():
    """Houdini's templates are facts of KIP-320 (evaluated on each 2/2/2/2 state); the epoch
    lemmas are false for KIP-279, where followers fetch across epochs."""
    ops = ConcreteOps()
    for generation, expect_false in (("kip320", set()),
                                     ("kip279", {"RecordsWithinReplicaEpoch", "FollowerEpochAtMostLeader"})):
        model = classic(generation=generation, replicas=2)
        sym = make_symbolic(model, unbounded=True)
        false = set()
        for s in reachable(model):
            v = sym.encode(s)
            assert sym.type_ok(ops, v)
            false |= {name for name, fn in sym.lemmas().items() if not fn(ops, v)}
        assert expect_false <= false and (not expect_false or "LeaderNamedByItsEpoch" not in false)
        if generation == "kip320":
            assert false == set()


@pytest.mark.slow
def test_builtin_lemmas_hold_on_sampled_reachable_kip320_states_at_3_replicas():
    """The same at 3/2/2/2 on 3,000 states from seeded random walks (the lemmas relate three
    brokers' ISRs and requests, which two replicas cannot show)."""
    ops = ConcreteOps()
    model = classic(generation="kip320", replicas=3)
    sym = make_symbolic(model, unbounded=True)
    for s in short_walks(model, 3000, seed=1):
        v = sym.encode(s)
        false = {name for name, fn in sym.lemmas().items() if not fn(ops, v)}
        assert not false, (false, s)


THIRD_BROKER_LEMMAS = tuple(name for name in ISR_PROOF_LEMMAS_3 if name not in ISR_PROOF_LEMMAS)


def test_third_broker_lemmas_hold_on_every_reachable_2_replica_state_and_sampled_3_replica_states():
    """The lemmas the 3-replica proof adds are facts of KIP-320: true in every reachable 2/2/2/2
    state and in 1,000 states of seeded random walks at 3/2/2/2 (where a third broker's HW
    exists); mutated states break them (the test can fail)."""
    ops = ConcreteOps()
    for replicas in (2, 3):
        model = classic(generation="kip320", replicas=replicas)
        sym = make_symbolic(model, unbounded=True)
        lemmas = {name: sym.lemmas()[name] for name in THIRD_BROKER_LEMMAS}
        states = reachable(model) if replicas == 2 else short_walks(model, 1000, seed=3)
        for s in states:
            v = sym.encode(s)
            assert all(fn(ops, v) for fn in lemmas.values()), s
    # Mutated: broker 2 follows broker 1 on the newest epoch 0 with HW 1 over a record of epoch 0,
    # and broker 1's HW is 0.
    v = sym.encode(next(iter(states)))
    v.nreq, v.ql, v.ld, v.ep, v.hw, v.length = 1, 0, [0, 0, -1], [0, 0, -1], [0, 1, 0], [1, 1, 0]
    v.rep = [(0,), (0,), ()]
    v.rid = [(0,), (0,), ()]
    assert not sym.lemmas()["NewestLeaderHwCoversItsEpoch"](ops, v)
    # Mutated (the state 1 of WeakIsr's CTI at 3 replicas, docs/proofs.md): broker 1 leads at epoch 2
    # with HW 2 and broker 2, on epoch 0, in its cached ISR; broker 3, in request 1's ISR, holds
    # another record at offset 1.
    v.nreq, v.ql, v.qisr, v.nrid, v.req_ld = 4, -1, [False] * 3, 4, (0, 2, 0, -1)
    v.req_isr = [(True, False, True, False), (True, True, True, False), (True, True, True, False)]
    v.ep, v.ld, v.hw, v.length = [2, 0, 1], [0, 0, 2], [2, 0, 0], [2, 2, 2]
    v.isr = [[True, True, False], [True, False, False], [True, False, True]]
    v.rid, v.rep = [(2, 3), (2, 3), (2, 0)], [(0, 0), (0, 0), (0, 1)]
    assert not sym.lemmas()["CommittedOnRequestIsrsAfterLaggingMember"](ops, v)


@pytest.mark.slow
def test_strong_and_weak_isr_proved_for_kip320_at_3_replicas(capsys):
    """The unbounded proof of StrongIsr and WeakIsr at 3 replicas with 22 lemmas (73-82 s CPU
    through the CLI, 64 s in the suite, 2026-11-23; docs/proofs.md). StrongIsr alone with these
    lemmas is not inductive (CommittedOnRequestIsrsAfterLaggingMember needs WeakIsr), so both are
    proved together."""
    flags = [x for name in ISR_PROOF_LEMMAS_3 for x in ("--lemma", name)]
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "3", "--invariant", "StrongIsr",
                   "--invariant", "WeakIsr", *flags, "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("Proved: StrongIsr, WeakIsr")


def test_goals_asked_step_by_step_past_the_budget_prove_and_refute_the_same(capsys, monkeypatch):
    """With no resource budget every goal is asked one step (act value) at a time: the
    LeaderInIsr proof at 2 replicas still closes, and KIP-279's CTI is still found and replayed
    (about 4 s CPU)."""
    from isrcheck.explorer.symbolic import induction

    monkeypatch.setattr(induction, "SPLIT_BUDGET", 1)
    for generation, status, words in (("kip320", 0, "Proved: LeaderInIsr"),
                                      ("kip279", 8, "Counterexample to induction: RecordsWithinReplicaEpoch")):
        got = main(["prove", "classic", "--generation", generation, "--replicas", "2", "--invariant",
                    "LeaderInIsr", *LEMMA_FLAGS, "--quiet"])
        out = capsys.readouterr().out
        assert got == status, out
        assert out.startswith(words), out


@pytest.mark.parametrize("argv,words", [
    (["--k", "0"], "--k must be at least 1"),
    (["--lemma", "Nope"], "no built-in lemma 'Nope'"),
    (["--lemmas", "missing.py"], "does not exist"),
])
def test_cli_prove_bad_input(argv, words, capsys):
    assert main(["prove", "classic", *argv]) == 2
    assert words in capsys.readouterr().err


def test_cli_prove_json_names_the_broken_conjunct(capsys):
    import json

    status = main(["prove", "classic", "--generation", "kip320", "--invariant", "LeaderInIsr", "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert status == 8
    assert data["verdict"] == "counterexample to induction" and data["cti"]["conjunct"] == "LeaderInIsr"
    assert len(data["cti"]["trace"]["states"]) == 2
    assert data["schema_version"] == 1 and data["encoding"] == "unbounded"  # docs/json.md


def test_a_model_without_symbolic_encoding_is_refused(capsys):
    assert main(["prove", "docs/examples/jugs.py"]) == 2
    assert "has no symbolic encoding" in capsys.readouterr().err


def test_cli_prove_time_limit_is_exit_5(capsys):
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "3", *LEMMA_FLAGS,
                   "--timeout", "0.001", "--quiet"])
    assert status == 5
    assert capsys.readouterr().out.startswith("Unknown: ")


def test_a_cti_too_large_to_tabulate_is_asked_again_with_small_values(monkeypatch):
    """Which CTI z3 returns depends on the process's history; one the explicit model cannot
    tabulate (explicit_for raises, as with log_size=7 on a Spark worker) is asked for again with
    small values in every state, and replayed, instead of ending the run with a traceback."""
    sym = make_symbolic(classic(generation="kip320", replicas=2), unbounded=True)
    real, calls = sym.explicit_for, []

    def too_large_once(*args):
        calls.append(args)
        if len(calls) == 1:
            raise ValueError("log_size=7 with max_records=4 ... more than the model tabulates")
        return real(*args)

    monkeypatch.setattr(sym, "explicit_for", too_large_once)
    result = prove(sym, properties=["LeaderInIsr"])
    assert len(calls) == 2
    assert result.verdict == "counterexample to induction"
    assert result.cti.property == "LeaderInIsr" and len(result.cti.trace) == 2
