"""``isrcheck prove --bounded``: induction over the bounded encoding, at the configuration's own bounds.

A classic generation proved (LeaderInIsr with its four controller lemmas) and one counterexample to
induction whose two states are states of the explicit model (decoded, re-encoded, the step one of
its successors); a KRaft proof at small bounds (2 brokers) with the ``structural`` lemma set and a
KRaft CTI replayed; Houdini dropping a false lemma; k-induction over distinct states; the named
lemma sets (read from the lemma modules' tuples; an unknown one refused with the known ones); the
bounded ``type_ok`` (the explicit bounds added) true in every reachable state; the distributed
asker (``--engine spark --bounded``) giving the local result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from isrcheck.explorer.cli.main import main
from isrcheck.explorer.symbolic.bounded_induction import prove_bounded
from isrcheck.explorer.symbolic.distributed import ProofSetup, local_asker, prove_distributed
from isrcheck.explorer.symbolic.induction import prove
from isrcheck.explorer.symbolic.lemma_sets import named_sets
from isrcheck.explorer.symbolic.ops import ConcreteOps
from isrcheck.model.kraft.symbolic import lemmas as kraft_lemma_module
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic
from tests.fixtures.states import reachable

CONTROLLER_LEMMAS = ["LeaderNamedByItsEpoch", "QuorumIsLastRequest", "TrueLeaderIsrIsQuorumIsr",
                     "QuorumIsrIsLastRequestUntilAdopted"]
KRAFT_SMALL = ["--generation", "kraft-kip966", "--replicas", "2", "--max-records", "1", "--max-fencings", "1"]


def test_leader_in_isr_proved_at_these_bounds(capsys):
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "2", "--invariant", "LeaderInIsr",
                   *[x for n in CONTROLLER_LEMMAS for x in ("--lemma", n)], "--bounded", "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("Proved for these bounds: LeaderInIsr hold(s) in every reachable state of this "
                          "configuration, at any trace length (induction over the bounded encoding; 4 lemmas: "
                          "LeaderNamedByItsEpoch,"), out
    assert "(z3, bounded encoding)" in out


def test_a_cti_is_two_states_of_the_explicit_model():
    """StrongIsr alone is not inductive: the CTI's states decode into the configuration's own
    explicit model, re-encode to themselves, and the step is one of the explicit successors."""
    model = classic(generation="kip320", replicas=2)
    sym = make_symbolic(model)
    result = prove_bounded(sym, properties=["StrongIsr"])
    assert result.verdict == "counterexample to induction" and result.cti.property == "StrongIsr"
    assert result.stats["explicit"] is model and result.stats["encoding"] == "bounded"
    first, step = result.cti.trace.steps
    assert (step.action, step.state) in list(model.successors(first.state))
    ops = ConcreteOps()
    for state in (first.state, step.state):
        assert sym.decode(ops, lambda x: x, sym.encode(state)) == state
        assert sym.type_ok(ops, sym.encode(state))
    strong = next(p for p in model.properties() if p.name == "StrongIsr")
    assert strong.predicate(first.state) and not strong.predicate(step.state)


def test_cli_cti_as_json(capsys):
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "2", "--invariant", "StrongIsr",
                   "--bounded", "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert status == 8
    assert data["encoding"] == "bounded" and data["verdict"] == "counterexample to induction"
    assert data["cti"]["conjunct"] == "StrongIsr" and len(data["cti"]["trace"]["states"]) == 2


def test_kraft_structural_lemmas_proved_at_two_brokers(capsys):
    status = main(["prove", "classic", *KRAFT_SMALL, "--invariant", "MetadataLogMatching", "--bounded",
                   "--lemma-set", "structural", "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("Proved for these bounds: MetadataLogMatching") and "21 lemmas" in out, out


def test_kraft_cti_replays_with_the_step_named(capsys):
    """Kafka 3.5's LeaderCompleteness without lemmas: a CTI, printed with the step that breaks it."""
    status = main(["prove", "classic", "--generation", "kraft-3.5", "--replicas", "2", "--max-records", "1",
                   "--max-fencings", "1", "--invariant", "LeaderCompleteness", "--bounded", "--quiet"])
    out = capsys.readouterr().out
    assert status == 8, out
    assert out.startswith("Counterexample to induction: LeaderCompleteness breaks."), out
    assert "State 1: a state where every conjunct holds (not necessarily reachable)" in out
    assert "State 2: " in out


def test_houdini_drops_a_false_lemma():
    sym = make_symbolic(classic(generation="kip320", replicas=2))
    lemmas = {name: sym.lemmas()[name] for name in CONTROLLER_LEMMAS}
    lemmas["NoRecordIsEverWritten"] = lambda o, v: v.nrid == 0  # true initially, not preserved
    result = prove_bounded(sym, properties=["LeaderInIsr"], lemmas=lemmas, houdini=True)
    assert result.verdict == "proved", result.reason
    assert result.stats["dropped"] == ["NoRecordIsEverWritten"] and result.lemmas == CONTROLLER_LEMMAS


def test_k_induction_over_distinct_states():
    """2-induction keeps the answers: the lemmas and LeaderInIsr proved, StrongIsr alone refuted
    (the CTI then has three states, the last step breaking it)."""
    sym = make_symbolic(classic(generation="kip320", replicas=2))
    lemmas = {name: sym.lemmas()[name] for name in CONTROLLER_LEMMAS}
    assert prove_bounded(sym, properties=["LeaderInIsr"], lemmas=lemmas, k=2).verdict == "proved"
    refuted = prove_bounded(sym, properties=["StrongIsr"], k=2)
    assert refuted.verdict == "counterexample to induction" and len(refuted.cti.trace) == 3
    states = [s.state for s in refuted.cti.trace.steps]
    assert len(set(states)) == 3


def lemmas_with_the_depth_two_deadlock(sym: Any) -> dict[str, Callable]:
    """The four controller lemmas and one false only in kip320's state at depth 2 where every run
    stops (2 replicas): 4-induction's base case must drop it."""
    lemmas = {name: sym.lemmas()[name] for name in CONTROLLER_LEMMAS}
    lemmas["NotTheDepthTwoDeadlock"] = lambda o, v: o.not_(o.and_(  # elected no leader, twice; nothing after
        v.nreq == 2, v.ql == -1, v.nrid == 0, *[o.not_(q) for q in v.qisr], *[e == -1 for e in v.ep],
        *[n == 0 for n in v.length]))
    return lemmas


def test_k_induction_base_covers_runs_that_stop_early():
    """k-induction's base case (bounded and unbounded) covers every state reachable in fewer than
    k steps, also one where every run stops (no step enabled): kip320 at 2 replicas has such a
    state at depth 2, and a lemma false only there was reported proved by 4-induction when the
    base case asked only of runs of k - 1 steps (no 5 distinct states lead to it, so consecution
    never meets it)."""
    sym = make_symbolic(classic(generation="kip320", replicas=2))
    lemmas = lemmas_with_the_depth_two_deadlock(sym)
    for result in (prove_bounded(sym, properties=["LeaderInIsr"], lemmas=lemmas, k=4),
                   prove(make_symbolic(sym.explicit, unbounded=True), properties=["LeaderInIsr"], lemmas=lemmas, k=4)):
        assert result.verdict == "proved" and result.lemmas == CONTROLLER_LEMMAS
        assert result.stats["dropped"] == ["NotTheDepthTwoDeadlock"]  # false initially: in the base case


def test_lemma_sets_are_the_modules_tuples():
    sets = named_sets(kraft_lemma_module.__dict__)
    assert sets["structural"] is kraft_lemma_module.STRUCTURAL_LEMMAS
    assert sets["leader-completeness-candidates"] is kraft_lemma_module.LEADER_COMPLETENESS_CANDIDATES
    assert named_sets({"ISR_PROOF_LEMMAS_3": ("A",), "NOT_A_SET": ("B",), "X_LEMMAS": "not a tuple"}) == \
        {"isr-proof-3": ("A",)}


def test_unknown_lemma_set_is_refused_with_the_known_ones(capsys):
    status = main(["prove", "classic", *KRAFT_SMALL, "--bounded", "--lemma-set", "structure"])
    err = capsys.readouterr().err
    assert status == 2
    assert "no lemma set 'structure'; its sets are structural, metadata, history" in err


def test_list_lemmas_shows_the_sets(capsys):
    assert main(["prove", "classic", "--generation", "kip320", "--list-lemmas"]) == 0
    out = capsys.readouterr().out
    assert "lemma sets (--lemma-set NAME):" in out and "  isr-proof (21): RecordEpochsSorted," in out


def test_distributed_asker_gives_the_local_bounded_result():
    """``--engine spark --bounded``: the queries asked through ``prove_distributed`` (here answered in
    this process, as an executor rebuilds the solver) give ``prove_bounded``'s verdicts: Houdini's
    drops, then the CTI of the dropped lemmas' target, replayed where it was found."""
    model = classic(generation="kip320", replicas=2)
    sym = make_symbolic(model)
    lemmas = {name: sym.lemmas()[name] for name in [*CONTROLLER_LEMMAS, "CommittedOnQuorumIsr"]}
    for properties, houdini in ((["LeaderInIsr"], True), (["StrongIsr"], False)):
        local = prove_bounded(sym, properties=properties, lemmas=lemmas, houdini=houdini)
        asker = local_asker(ProofSetup("classic", bounded=True), model)
        dist = prove_distributed(sym, ask_many=asker, properties=properties, lemmas=lemmas, houdini=houdini)
        assert (dist.verdict, dist.lemmas, dist.stats["dropped"], dist.cti and dist.cti.property) == \
            (local.verdict, local.lemmas, local.stats["dropped"], local.cti and local.cti.property)
    assert local.verdict == "counterexample to induction"
    # One initiation and one consecution query per conjunct: the whole conjunct, never its parts or steps.
    assert dist.stats["queries"] == 2 * (len(lemmas) + 1) and dist.stats["waves"] == 1
    before, after = dist.cti.trace.steps
    assert (after.action, after.state) in list(model.successors(before.state))


def test_bounded_type_ok_holds_in_every_reachable_state():
    """What the bounded type_ok adds (the explicit bounds of logs, HWs, ids, requests, flushed
    offsets; KRaft's metadata log within its array, a broker STARTING only after a shutdown) is
    true in every reachable state, and so is the rest of type_ok (a follower's HW above its log where a
    committed record is lost)."""
    ops = ConcreteOps()
    for options in ({"generation": "kip101", "replicas": 2, "max_crashes": 1, "stops": "all", "max_records": 1,
                     "max_leader_epoch": 1},
                    {"generation": "kraft-kip966", "replicas": 2, "max_records": 1, "max_crashes": 1,
                     "stops": "lossy"},
                    # K11's states: a follower's HW above its log once the leader lost the record
                    {"generation": "kraft-3.5", "replicas": 2, "min_insync_replicas": 1, "max_records": 1,
                     "max_fencings": 1, "max_crashes": 1, "stops": "lossy"},
                    # K7's, at KIP-966 too: the HW over the ISR, not the maximal ISR, loses the record
                    {"generation": "kraft-kip966", "replicas": 3, "min_insync_replicas": 2, "max_records": 1,
                     "init_isr_size": 2, "max_fencings": 1, "hw_over_maximal_isr": False}):
        model = classic(**options)
        sym = make_symbolic(model)
        for state in reachable(model):
            assert sym.type_ok(ops, sym.encode(state)), (options, model.state_view(state))


def test_variants_in_a_users_file_get_their_own_cti(capsys):
    """A classic and a KRaft variant (docs/variants.md): the CTI is the variant's, at its changed step
    (the lag-one ISR rule admits a lagging follower; the epoch that survives a lossy shutdown)."""
    for argv, broken, step in ((["docs/examples/lag_one_isr.py", "--invariant", "StrongIsr", "--lemma-set",
                                 "isr-proof"], "CommittedOnQuorumIsr", "LeaderExpandIsr("),
                               (["docs/examples/kraft_epoch_survives.py", "--invariant", "MetadataLogMatching",
                                 "--lemma-set", "structural"], "LossyStopEmptiesLog", "DataLossShutdown(")):
        status = main(["prove", *argv, "--bounded", "--quiet"])
        out = capsys.readouterr().out
        assert status == 8, out
        assert out.startswith(f"Counterexample to induction: {broken} breaks."), out
        assert f"State 2: {step}" in out, out


def test_a_time_limit_is_unknown_exit_5(capsys):
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "2", "--invariant", "StrongIsr",
                   "--lemma-set", "isr-proof", "--bounded", "--timeout", "0.001", "--quiet"])
    out = capsys.readouterr().out
    assert status == 5, out
    assert out.startswith("Unknown: ") and "timeout" in out.splitlines()[0], out
