"""The distributed proof (``isrcheck prove --engine spark``) gives the local proof's result.

``prove_distributed`` asks its queries through any ``ask_many``; here ``local_asker`` answers them
in this process with a solver rebuilt from the setup, as an executor rebuilds it, so the
scheduling (waves, Houdini's drops, split parts, CTIs found again in the driver) is tested without
Spark; tests/explorer/search/spark/test_distributed_prove.py does the same on executors."""

from __future__ import annotations

import pytest
from isrcheck.explorer.symbolic.distributed import ProofSetup, local_asker, prove_distributed
from isrcheck.explorer.symbolic.induction import prove
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic
from tests.fixtures.paths import ROOT

LEMMAS = ["LeaderNamedByItsEpoch", "QuorumIsLastRequest", "TrueLeaderIsrIsQuorumIsr",
          "QuorumIsrIsLastRequestUntilAdopted", "RecordsWithinReplicaEpoch", "FollowerEpochAtMostLeader",
          "HighWatermarkWithinLog"]
USER_LEMMAS = ROOT / "docs" / "examples" / "lemmas.py"


def verdicts(result):
    """What must agree with the local proof: the verdict, why, every conjunct kept or dropped (in
    prove's order) and the conjunct a counterexample breaks. The CTI's states may differ: z3 picks
    one of many models, and its choice depends on the queries the process asked before."""
    return {"verdict": result.verdict, "reason": result.reason, "properties": result.properties,
            "lemmas": result.lemmas, "dropped": result.stats.get("dropped"),
            "cti": result.cti.property if result.cti else None,
            "cti_length": len(result.cti.trace) if result.cti else None}


def both(options, properties, lemma_names, *, houdini=False, user=False):
    model = classic(**options)
    sym = make_symbolic(model, unbounded=True)
    lemmas = {n: sym.lemmas()[n] for n in lemma_names}
    lemma_file = None
    if user:
        namespace = {}
        exec(compile(USER_LEMMAS.read_text(), str(USER_LEMMAS), "exec"), namespace)
        lemmas.update(namespace["LEMMAS"])
        lemma_file = (str(USER_LEMMAS), USER_LEMMAS.read_text())
    local = prove(sym, properties=properties, lemmas=lemmas, houdini=houdini)
    asker = local_asker(ProofSetup("classic", lemma_file=lemma_file), model)
    distributed = prove_distributed(sym, ask_many=asker, properties=properties, lemmas=lemmas, houdini=houdini)
    return local, distributed


def test_a_proof_is_the_local_proof_in_one_wave():
    local, dist = both({"generation": "kip320", "replicas": 2}, ["LeaderInIsr"], LEMMAS[:4])
    assert verdicts(dist) == verdicts(local) and local.verdict == "proved"
    assert dist.stats["waves"] == 1  # nothing to wait for: every query at once


def test_a_counterexample_breaks_the_same_conjunct_and_replays():
    local, dist = both({"generation": "kip279", "replicas": 3}, ["LeaderInIsr"], LEMMAS)
    assert verdicts(dist) == verdicts(local) and dist.cti.property == "RecordsWithinReplicaEpoch"
    model = dist.stats["explicit"]  # prove's cti() replayed the step through the explicit model
    before, after = dist.cti.trace.steps
    assert (after.action, after.state) in list(model.successors(before.state))


def test_without_lemmas_the_target_breaks_as_locally():
    local, dist = both({"generation": "kip320", "replicas": 2}, ["LeaderInIsr"], [])
    assert verdicts(dist) == verdicts(local) and dist.cti.property == "LeaderInIsr"


def test_houdini_drops_the_same_lemmas_in_the_same_order():
    local, dist = both({"generation": "kip320", "replicas": 2}, ["LeaderInIsr"],
                       [*LEMMAS[:4], "HighWatermarkWithinLog"], houdini=True, user=True)
    assert verdicts(dist) == verdicts(local)
    assert local.stats["dropped"] == ["NoRecordIsEverWritten"]


@pytest.mark.slow
def test_houdini_from_every_template_on_kip279_drops_nine_as_locally():
    """Nine templates are false before KIP-320; a drop the plan did not foresee starts a new wave."""
    model = classic(generation="kip279", replicas=2)
    sym = make_symbolic(model, unbounded=True)
    lemmas = dict(sym.lemmas())
    local = prove(sym, properties=["LeaderInIsr"], lemmas=lemmas, houdini=True)
    dist = prove_distributed(sym, ask_many=local_asker(ProofSetup("classic"), model), properties=["LeaderInIsr"],
                             lemmas=lemmas, houdini=True)
    assert verdicts(dist) == verdicts(local) and len(local.stats["dropped"]) == 9


def test_a_name_that_is_both_a_lemma_and_an_invariant_means_the_lemma_unless_it_is_a_target():
    # LogMatching is a built-in lemma (four top-level parts, one query each) and an invariant of the
    # classic model (one formula): the executor must rebuild the one prove checks.
    model = classic(generation="kip320", replicas=2)
    sym = make_symbolic(model, unbounded=True)
    asker = local_asker(ProofSetup("classic"), model)
    seen = []

    def recording(queries):
        seen.extend(q for q in queries if q.kind == "cons" and q.name == "LogMatching")
        return asker(queries)

    lemmas = {n: sym.lemmas()[n] for n in [*LEMMAS[:4], "LogMatching"]}
    prove_distributed(sym, ask_many=recording, properties=["LeaderInIsr"], lemmas=lemmas)
    assert {q.part for q in seen} == {0, 1, 2, 3} and not any(q.targets == ("LogMatching",) for q in seen)
    seen.clear()
    prove_distributed(sym, ask_many=recording, properties=["LogMatching"], lemmas=lemmas)
    assert {q.part for q in seen} == {0} and all(q.targets == ("LogMatching",) for q in seen)
