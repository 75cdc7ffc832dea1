"""``isrcheck bmc --lemma/--lemma-set/--lemmas/--houdini``: lemmas proved at the configuration's
bounds, asserted in every state; BMC that ends when every target is inductive with them.

The completion verdict on a classic configuration (LeaderInIsr with its four controller lemmas:
"no violation at any length", no length unrolled); a target that is not inductive still unrolled,
with the lemmas asserted; a lemma that is not inductive refused (exit 2, which and why) and, with
``--houdini``, dropped, so that BMC still finds K9, which asserting that lemma would hide; unknown
lemma and set names refused with the known ones; a KRaft violation at the same length with the
structural lemmas asserted as without them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.explorer.symbolic.bmc_lemmas import bmc_with_lemmas
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic
from tests.fixtures.paths import ROOT

CONTROLLER_LEMMAS = ["LeaderNamedByItsEpoch", "QuorumIsLastRequest", "TrueLeaderIsrIsQuorumIsr",
                     "QuorumIsrIsLastRequestUntilAdopted"]
KIP320 = ["bmc", "classic", "--generation", "kip320", "--replicas", "2", "--quiet"]
LEMMA_ARGS = [x for n in CONTROLLER_LEMMAS for x in ("--lemma", n)]
K9 = ["bmc", "classic", "--acks", "1", "--invariant", "AckedRecordNotLost", "--depth", "8", "--quiet"]


def interrupted_run(args: list[str], cue: str, timeout: float, setup: str = "") -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``isrcheck *args`` sent SIGINT one second after a stderr line
    containing ``cue``: the point after which the run is inside a solver call that lasts seconds.
    ``setup``: Python run in that process before the command (to reach a path quickly)."""
    command = [sys.executable, "-m", "isrcheck"] if not setup else [
        sys.executable, "-c", f"{setup}\nimport sys\nfrom isrcheck.explorer.cli.main import main\n"
                              "raise SystemExit(main(sys.argv[1:]))"]
    proc = subprocess.Popen([*command, *args], stdout=subprocess.PIPE, cwd=ROOT,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        for line in proc.stderr:
            if cue in line:
                break
        time.sleep(1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
    return proc.returncode, out, err


def test_bmc_ends_when_the_target_is_inductive_with_the_lemmas(capsys):
    status = main([*KIP320, "--invariant", "LeaderInIsr", *LEMMA_ARGS, "--depth", "30", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert data["schema_version"] == 1 and data["any_length"] is True and data["inductive"] == ["LeaderInIsr"]
    assert data["lemmas"] == CONTROLLER_LEMMAS and data["lemmas_not_proved"] == {}
    assert data["depth"] == 0 and data["solver_seconds"] == []  # no length unrolled: none needed
    status = main([*KIP320, "--invariant", "LeaderInIsr", *LEMMA_ARGS, "--depth", "30"])
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith("BMC: no violation at any length: LeaderInIsr is inductive with 4 proved lemmas at these "
                          "bounds"), out


def test_a_target_not_inductive_is_unrolled_with_the_lemmas_asserted():
    sym = make_symbolic(classic(generation="kip320", replicas=2))
    lemmas = {name: sym.lemmas()[name] for name in CONTROLLER_LEMMAS}
    result = bmc_with_lemmas(sym, lemmas, depth=5, properties=["LeaderInIsr", "StrongIsr"])
    assert result.verdict == "no violation" and result.depth == 5
    assert result.stats["inductive"] == ["LeaderInIsr"] and result.stats["any_length"] is False
    assert result.lemmas == CONTROLLER_LEMMAS and len(result.stats["sat_conflicts"]) == 5


def test_a_lemma_that_is_not_inductive_is_never_asserted():
    """AckedRecordNotLost as a lemma: asserted in every state it hides K9 (6 states); bmc refuses it
    without --houdini and, with it, drops it and finds K9 at the plain length."""
    sym = make_symbolic(classic(acks="1"))
    false_lemma = {"AckedNeverLost": sym.properties()["AckedRecordNotLost"]}
    hidden = bmc(sym, depth=6, properties=["AckedRecordNotLost"], assumed=false_lemma)
    assert hidden.verdict == "no violation"  # what asserting an unproved lemma would do
    with pytest.raises(UserError, match=r"AckedNeverLost: a counterexample to induction \(broken by \w+\).*--houdini"):
        bmc_with_lemmas(sym, false_lemma, depth=6, properties=["AckedRecordNotLost"])
    found = bmc_with_lemmas(sym, false_lemma, depth=8, houdini=True, properties=["AckedRecordNotLost"])
    assert found.verdict == "violation" and found.depth == 6 and found.violations[0].property == "AckedRecordNotLost"
    assert found.lemmas == [] and list(found.stats["lemmas_not_proved"]) == ["AckedNeverLost"]


def test_a_lemma_the_solver_does_not_answer_for_is_unknown_not_bad_input(capsys):
    """A time limit hit while proving a lemma is the solver's limit (exit 5), not a wrong option (2)."""
    status = main([*KIP320, "--invariant", "LeaderInIsr", *LEMMA_ARGS, "--depth", "3", "--timeout", "0.0001",
                   "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 5 and data["verdict"] == "unknown"
    assert "--timeout" in data["reason"] and data["lemmas"] == [] and data["lemmas_not_proved"]


def test_the_cli_refuses_a_lemma_that_is_not_proved(capsys):
    status = main([*KIP320, "--invariant", "LeaderInIsr", "--lemmas", "docs/examples/lemmas.py", "--depth", "3"])
    err = capsys.readouterr().err
    assert status == 2
    assert "NoRecordIsEverWritten: a counterexample to induction" in err and "--houdini" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("option", "known"), [("--lemma", "its lemmas are RecordEpochsSorted, "),
                                               ("--lemma-set", "its sets are ")])
def test_unknown_lemma_names_are_refused_with_the_known_ones(capsys, option, known):
    status = main([*KIP320, option, "NoSuchLemma", "--depth", "3"])
    err = capsys.readouterr().err
    assert status == 2 and "NoSuchLemma" in err and known in err, err


def test_a_kraft_violation_at_the_plain_length_with_lemmas_asserted(capsys):
    """Kafka 3.5 at 2 brokers: the structural lemmas that hold there (Houdini keeps them) asserted in
    every state, NoCommittedRecordLostGlobally still violated at 5 states, as without them, and the
    trace replayed through the explicit model."""
    args = ["bmc", "classic", "--generation", "kraft-3.5", "--replicas", "2", "--min-insync-replicas", "1",
            "--max-records", "1", "--max-fencings", "1", "--max-crashes", "1", "--stops", "lossy",
            "--invariant", "NoCommittedRecordLostGlobally", "--depth", "6", "--quiet", "--json"]
    status = main([*args, "--lemma-set", "structural", "--houdini"])
    data = json.loads(capsys.readouterr().out)
    assert status == 1
    assert data["violations"][0]["length"] == 5 and len(data["lemmas"]) >= 10, data["lemmas"]
    assert data["inductive"] == []


def test_list_lemmas_needs_no_depth_and_anything_else_does(capsys):
    assert main(["bmc", "classic", "--generation", "kip320", "--list-lemmas"]) == 0
    assert "isr-proof (21): " in capsys.readouterr().out
    assert main(["bmc", "classic", "--generation", "kip320"]) == 2
    assert "--depth K is required" in capsys.readouterr().err


@pytest.mark.slow  # 10 s of CPU: the signal must land inside a solver call that takes seconds
def test_ctrl_c_inside_a_solver_call_is_interrupted_not_unknown():
    """z3 catches SIGINT during a check and answers unknown ("interrupted from keyboard"): bmc
    reports that as interrupted (exit 130), not as a solver limit (exit 5)."""
    # length 9 takes seconds: one second after length 8, the signal lands in z3's check
    status, out, _ = interrupted_run(["bmc", "classic", "--generation", "kraft-kip966", "--replicas", "3",
                                      "--max-records", "1", "--max-fencings", "1", "--depth", "40", "--json"],
                                     "traces of 8 states", 120)
    data = json.loads(out)
    assert status == 130 and data["verdict"] == "interrupted", data["reason"]


HARD_LEMMA = "tests/explorer/symbolic/hard_lemma.py"  # a lemma z3 cannot answer for in seconds


def test_ctrl_c_while_proving_a_lemma_is_interrupted_not_unknown(tmp_path):
    """z3 answers unknown ("interrupted from keyboard") when Ctrl-C lands inside a lemma's query:
    bmc stops, exit 130 with verdict interrupted, not a lemma without an answer (exit 5 after the
    remaining lemmas were asked; with --houdini the lemma dropped and the unrolling run). 3 s."""
    for extra in ([], ["--houdini", "--lemma", "LeaderNamedByItsEpoch"]):
        # the lemma's query starts right after the cue, and lasts
        status, out, err = interrupted_run([*KIP320[:-1], "--invariant", "LeaderInIsr", "--lemmas", HARD_LEMMA,
                                            *extra, "--depth", "3", "--json"], "lemmas inductive at these bounds", 60)
        data = json.loads(out)
        assert status == 130 and data["verdict"] == "interrupted", (extra, data["reason"], err)
        assert data["lemmas"] == [] and data["depth"] == 0 and "proving the lemmas" in data["reason"]


def test_a_refuted_lemma_is_refused_even_beside_one_without_an_answer(tmp_path, capsys):
    """One lemma false initially and one the solver does not answer for in --timeout: the refusal
    (exit 2) names both, not "unknown" (exit 5) naming only the second, which sent the user to
    raise the time limit and be refused for the first afterwards. 1 s of solver time."""
    lemmas = tmp_path / "lemmas.py"
    lemmas.write_text((ROOT / HARD_LEMMA).read_text().replace(
        'LEMMAS = {"NoFactors": no_factors}', 'LEMMAS = {"Never": lambda ops, v: ops.false, "NoFactors": no_factors}'))
    status = main([*KIP320, "--invariant", "LeaderInIsr", "--lemmas", str(lemmas), "--depth", "3", "--timeout", "1"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Never: false initially" in err and "NoFactors: no answer to its initiation" in err, err
    assert "raise --timeout" in err and "--houdini" in err and "Traceback" not in err


def test_ctrl_c_inside_a_prove_query_is_interrupted_not_unknown():
    """The same for prove (--bounded, the lemma's initiation query): exit 130, verdict interrupted,
    not the solver's limit (exit 5). 3 s."""
    # the initiation queries come first, NoFactors' lasts
    status, out, err = interrupted_run(["prove", *KIP320[1:-1], "--invariant", "LeaderInIsr", "--lemmas", HARD_LEMMA,
                                        "--bounded", "--json"], "NoFactors: formula built", 60)
    data = json.loads(out)
    assert status == 130 and data["verdict"] == "interrupted", (data["reason"], err)


def test_ctrl_c_in_unbounded_proves_per_step_retries_is_interrupted():
    """Unbounded ``prove`` asks a consecution query over every step within a resource budget, then,
    past it, once per step, each with small values first (an assumption): a Ctrl-C inside one made
    z3 answer unknown with the reason "canceled", as its limits do, so it was asked again without
    small values, the interrupt lost, and the run never ended here. It must end: exit 130, verdict
    interrupted. The budget is cut to 1 so that the retries start at once; the lemma's query after
    a write is the hard one. 3 s."""
    status, out, err = interrupted_run(["prove", *KIP320[1:-1], "--invariant", "LeaderInIsr", "--lemmas",
                                        "tests/explorer/symbolic/hard_after_a_write.py", "--json"],
                                       "AfterAWrite: formula 3 built", 60,
                                       setup="import isrcheck.explorer.symbolic.induction as induction\n"
                                             "induction.SPLIT_BUDGET = 1")
    data = json.loads(out)
    assert status == 130 and data["verdict"] == "interrupted", (data["reason"], err)
    assert data["reason"] == "interrupted (Ctrl-C)", data["reason"]
