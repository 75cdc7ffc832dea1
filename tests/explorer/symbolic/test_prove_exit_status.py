"""``isrcheck prove``'s verdicts and their exit statuses: a counterexample to induction is not a
violation (its first state may be unreachable: exit 8, "not proved"); a target false in the base
case (an initial state, or a run of fewer than k states for k-induction) is a real trace: verdict
"violation", exit 1, in the local, bounded and distributed loops alike.

The real case: with acknowledgement from the leader alone (``--acks 1``), AckedRecordNotLost fails
in a trace of 6 states (bmc finds it), so 6-induction's base case holds a violation, while
5-induction's does not and its step gives a CTI. About 0.3 s of solver each."""

from __future__ import annotations

import json

from isrcheck.explorer.cli.main import main
from isrcheck.explorer.symbolic.bounded_induction import prove_bounded
from isrcheck.explorer.symbolic.distributed import ProofSetup, local_asker, prove_distributed
from isrcheck.explorer.symbolic.induction import prove
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic

ACKS_1 = {"acks": "1"}
PROVE_ACKS_1 = ["prove", "classic", "--acks", "1", "--invariant", "AckedRecordNotLost", "--bounded", "--json",
                "--quiet"]


def test_a_target_false_in_the_base_case_is_a_violation_local_and_distributed():
    model = classic(**ACKS_1)
    local = prove_bounded(make_symbolic(model), properties=["AckedRecordNotLost"], k=6)
    asker = local_asker(ProofSetup("classic", k=6, bounded=True), model)
    distributed = prove_distributed(make_symbolic(model), ask_many=asker, properties=["AckedRecordNotLost"], k=6)
    for result in (local, distributed):
        assert result.verdict == "violation" and result.cti is None
        assert result.reason == ("AckedRecordNotLost fails in a run of at most 6 states from an initial state "
                                 "(the base case of 6-induction)")


def test_a_target_false_in_an_initial_state_is_a_violation(monkeypatch):
    """No model's invariant fails initially, so one is made to: the loop must call it a violation."""
    sym = make_symbolic(classic(generation="kip320", replicas=2), unbounded=True)
    encoded = sym.properties()
    monkeypatch.setattr(sym, "properties", lambda: {**encoded, "LeaderInIsr": lambda ops, v: ops.false})
    result = prove(sym, properties=["LeaderInIsr"])
    assert (result.verdict, result.reason) == ("violation", "LeaderInIsr fails in an initial state")


def test_cli_base_case_violation_exits_1_and_a_cti_exits_8(capsys):
    assert main([*PROVE_ACKS_1, "--k", "6"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "violation" and data["cti"] is None and "base case of 6-induction" in data["reason"]
    assert main([*PROVE_ACKS_1, "--k", "5"]) == 8
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "counterexample to induction" and data["cti"]["conjunct"] == "AckedRecordNotLost"


def test_cli_base_case_violation_text_says_it_is_a_real_trace(capsys):
    assert main([*(a for a in PROVE_ACKS_1 if a != "--json"), "--k", "6"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("Violation: AckedRecordNotLost fails in a run of at most 6 states"), out
    assert "a real trace" in out and "isrcheck bmc --depth 6" in out


def test_a_lemma_false_initially_is_reported_as_such_not_as_houdinis(tmp_path, capsys) -> None:
    """Without --houdini, a lemma of the user's that fails in an initial state is left out (which
    only weakens what is assumed) and the report says why, not that Houdini dropped it."""
    lemmas = tmp_path / "lemmas.py"
    lemmas.write_text("def some_record(ops, v):\n    return ops.or_(*(k == 1 for k in v.length))\n\n"
                      "LEMMAS = {'SomeRecordWritten': some_record}\n")
    status = main(["prove", "classic", "--generation", "kip320", "--replicas", "2", "--invariant", "StrongIsr",
                   "--lemma-set", "isr-proof", "--lemmas", str(lemmas), "--bounded", "--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Dropped, false in an initial state: SomeRecordWritten." in out
    assert "Houdini dropped" not in out


def test_a_lemma_false_only_after_a_step_is_not_said_false_in_an_initial_state(tmp_path, capsys) -> None:
    """With --k 4 a lemma true initially but false after the first write (within 4 states) is
    dropped by the base case; the report must not say it is false in an initial state (it holds there)."""
    lemmas = tmp_path / "lemmas.py"
    lemmas.write_text("def nothing_written(ops, v):\n    return ops.and_(*(k == 0 for k in v.length))\n\n"
                      "LEMMAS = {'NothingWritten': nothing_written}\n")
    status = main([*(a for a in PROVE_ACKS_1 if a != "--json"), "--lemmas", str(lemmas), "--k", "4"])
    out = capsys.readouterr().out
    assert status == 8, out  # AckedRecordNotLost's CTI; the lemma's line is printed after any verdict
    assert "Dropped, false in a run of at most 4 states (the base case): NothingWritten." in out
    assert "false in an initial state" not in out
