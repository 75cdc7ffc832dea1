"""The lemmas toward the KRaft invariants other than LeaderCompleteness (model/kraft/symbolic/target_lemmas.py;
docs/kraft.md, "The other invariants"): offered as the set ``targets``, true where they can be checked
(reachable states for the ones without history, the symbolic walks for the history's), and what the
docs say each target needs, one consecution query each at K11-fixed's bounds."""

from __future__ import annotations

import pytest
import z3
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.symbolic.bounded_induction import BoundedProver
from isrcheck.explorer.symbolic.ops import ConcreteOps
from isrcheck.model.kraft.symbolic import target_lemmas as target_module
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.states import reachable
from tests.model.test_kraft_symbolic import ANCHOR, SMALL, kraft, random_walk_sample, symbolic_walk

NO_HISTORY = ("RecoveryQuorumUnion", "LastKnownLeftRegistered", "AckedCommitted")
HISTORY = ("MembersReadCommitEpoch", "RegisteredMemberReadded", "LossPlaced", "SeenLostBelowNewerStart")
PROVED_SETS = ("structural", "metadata", "history", "bounded-inductive", "epoch-writer", "epoch-history",
               "epoch-history-2")
CANDIDATE_SETS = ("leader-completeness-candidates", "epoch-history-candidates", "epoch-history-2-candidates")


def test_targets_set_is_offered_and_listed(capsys):
    assert target_module.TARGETS_LEMMAS == NO_HISTORY + HISTORY
    sym = make_symbolic(kraft("kraft-kip966", **ANCHOR))
    assert sym.lemma_sets()["targets"] == NO_HISTORY + HISTORY
    assert set(NO_HISTORY + HISTORY) <= set(sym.lemmas())
    unbounded = make_symbolic(kraft("kraft-kip966", **ANCHOR), unbounded=True)
    assert set(NO_HISTORY) <= set(unbounded.lemmas()) and not set(HISTORY) & set(unbounded.lemmas())
    argv = ["prove", "classic", "--generation", "kraft-kip966", "--bounded", "--list-lemmas"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "targets" in out and "RecoveryQuorumUnion" in out and "SeenLostBelowNewerStart" in out
    # Without --bounded the history's lemmas are not there: refused by name, with the fix.
    argv = ["prove", "classic", "--generation", "kraft-kip966", *"--replicas 2 --min-insync-replicas 1 --max-records 1 "
            "--max-fencings 0 --max-crashes 1 --stops lossy".split(), "--lemma-set", "targets", "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "names MembersReadCommitEpoch" in err and "add --bounded" in err and "Traceback" not in err


def test_target_lemmas_without_history_hold_in_reachable_states():
    """Every reachable state of a small KIP-966 configuration, and random walks at K11-fixed's bounds
    (docs/kraft.md: all 973,728 reachable states of K11-fixed were checked in the work too)."""
    ops = ConcreteOps()
    for model, states in ((m := kraft("kraft-kip966", **{**SMALL, "max_fencings": 1}), reachable(m)),
                          (m2 := kraft("kraft-kip966", **ANCHOR), random_walk_sample(m2, 1500, seed=7))):
        sym = make_symbolic(model, unbounded=True)
        lemmas = sym.lemmas()
        broken = {n: model.state_view(s) for s in states for n in NO_HISTORY if not lemmas[n](ops, sym.encode(s))}
        assert len(states) > 1000 and broken == {}


def test_target_history_lemmas_hold_on_symbolic_walks():
    ops = ConcreteOps()
    for options, seed in ((ANCHOR, 3), ({**ANCHOR, "max_fencings": 3}, 4)):
        sym = make_symbolic(kraft("kraft-kip966", **options))
        lemmas = sym.lemmas()
        states = symbolic_walk(sym, 600, seed)
        assert any(v.h.hwe >= 2 for v in states) and any(max(v.h.lost) > 0 for v in states)
        assert [n for n in HISTORY if not all(lemmas[n](ops, v) for v in states)] == []


def test_recovery_quorum_union_rejects_what_the_cti_had():
    """The CTI of MinIsrRecoveryQuorum (docs/kraft.md): ISR empty, ELR {1}, last known ELR {2, 3}
    (three brokers where min.insync.replicas is 2) is a state RecoveryQuorumUnion excludes, and the
    initial state is one it admits."""
    model = kraft("kraft-kip966", **ANCHOR)
    sym, ops = make_symbolic(model, unbounded=True), ConcreteOps()
    fn = sym.lemmas()["RecoveryQuorumUnion"]
    v = sym.encode(model.init_states()[0])
    assert fn(ops, v)
    bad = v.copy()
    bad.m_isr = [(False,)] * 3
    bad.m_elr = [(True,), (False,), (False,)]
    bad.m_lk = [(False,), (True,), (True,)]
    assert not fn(ops, bad)
    bad.m_lk = [(False,), (True,), (False,)]
    assert fn(ops, bad)


def test_candidate_completeness_follows_from_committed_on_members():
    """LeaderCandidateCompleteness is implied, in one state, by the candidate CommittedOnMembers
    (lemmas.py): once that candidate is inductive, so is the target, with no further lemma."""
    sym = make_symbolic(kraft("kraft-kip966", **ANCHOR))
    prover = BoundedProver(sym, k=1)
    v, ops = prover.states[0], prover.ops
    fns = {**sym.lemmas(), **sym.properties()}
    solver = prover._fresh(base=False)
    target = fns["LeaderCandidateCompleteness"](ops, v)
    # The prover's solvers are in its own z3 context: the formulas, built in the main one, go in translated.
    solver.add(*prover.here([sym.type_ok(ops, v), fns["CommittedOnMembers"](ops, v), ops.not_(target)]))
    assert solver.check() == z3.unsat
    solver = prover._fresh(base=False)  # not a tautology: without it, a state breaks the target
    solver.add(*prover.here([sym.type_ok(ops, v), ops.not_(target)]))
    assert solver.check() == z3.sat


@pytest.mark.slow
def test_what_each_target_needs_at_k11_fixed():
    """One consecution query per target, as docs/kraft.md's table says (about a minute and a half of
    CPU): ReplicationQuorumSuperset and MinIsrRecoveryQuorum are preserved with the 94 and
    ``targets``, the latter not without RecoveryQuorumUnion; LeaderCandidateCompleteness with the
    seven candidates assumed too, and not without them."""
    sym = make_symbolic(kraft("kraft-kip966", **ANCHOR))
    lemmas, sets, props = sym.lemmas(), sym.lemma_sets(), sym.properties()
    proved = {n: lemmas[n] for s in (*PROVED_SETS, "targets") for n in sets[s]}
    candidates = {n: lemmas[n] for s in CANDIDATE_SETS for n in sets[s]}
    prover = BoundedProver(sym, k=1)

    def preserved(goal: str, assumed: dict) -> bool:
        answer, _ = prover.consecution({**assumed, goal: props[goal]}, goal, props[goal])
        assert answer in (z3.sat, z3.unsat)
        return answer == z3.unsat

    assert len(proved) == 101
    assert preserved("ReplicationQuorumSuperset", proved)
    assert preserved("MinIsrRecoveryQuorum", proved)
    assert not preserved("MinIsrRecoveryQuorum", {n: f for n, f in proved.items() if n != "RecoveryQuorumUnion"})
    everything = {**proved, **candidates, **props}
    assert preserved("LeaderCandidateCompleteness", everything)
    assert not preserved("LeaderCandidateCompleteness", {**proved, **props})
