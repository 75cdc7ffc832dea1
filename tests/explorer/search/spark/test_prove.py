"""``isrcheck prove --engine spark``: the proof's queries answered on executors, with the local
proof's verdict, lemmas kept and dropped, and the conjunct a counterexample breaks; bad input
refused with exit 2 before Spark starts."""

from __future__ import annotations

import json

import pytest
from isrcheck.explorer.cli.main import main

from tests.fixtures.paths import ROOT

pytestmark = pytest.mark.spark

LEMMA_FLAGS = ["--lemma", "LeaderNamedByItsEpoch", "--lemma", "QuorumIsLastRequest", "--lemma",
               "TrueLeaderIsrIsQuorumIsr", "--lemma", "QuorumIsrIsLastRequestUntilAdopted"]
EPOCH_FLAGS = ["--lemma", "RecordsWithinReplicaEpoch", "--lemma", "FollowerEpochAtMostLeader",
               "--lemma", "HighWatermarkWithinLog"]


def run_json(argv, capsys):
    code = main(["prove", "classic", *argv, "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    cti = data.pop("cti")
    data.pop("elapsed")
    return code, data, cti


@pytest.mark.parametrize("argv", [
    ["--generation", "kip320", "--replicas", "3", "--invariant", "LeaderInIsr", *LEMMA_FLAGS],
    ["--generation", "kip320", "--replicas", "2", "--invariant", "LeaderInIsr", *LEMMA_FLAGS,
     "--lemma", "HighWatermarkWithinLog", "--lemmas", str(ROOT / "docs" / "examples" / "lemmas.py"), "--houdini"],
    ["--generation", "kip320", "--replicas", "2", "--invariant", "LeaderInIsr", *LEMMA_FLAGS, "--bounded"],
], ids=["proved", "houdini-user-lemmas", "bounded"])
def test_the_same_proof_as_one_process(spark, capsys, argv):
    local = run_json(argv, capsys)
    distributed = run_json([*argv, "--engine", "spark"], capsys)
    assert distributed == local and local[0] == 0


def test_the_same_conjunct_breaks_and_the_cti_replays(spark, capsys):
    argv = ["--generation", "kip279", "--replicas", "3", "--invariant", "LeaderInIsr", *LEMMA_FLAGS, *EPOCH_FLAGS]
    code, data, cti = run_json(argv, capsys)
    dcode, ddata, dcti = run_json([*argv, "--engine", "spark"], capsys)
    assert (dcode, ddata) == (code, data) and code == 8
    assert dcti["conjunct"] == cti["conjunct"] == "RecordsWithinReplicaEpoch"
    assert len(dcti["trace"]["states"]) == len(cti["trace"]["states"]) == 2


def test_the_text_report_is_the_local_one(spark, capsys):
    argv = ["prove", "classic", "--generation", "kip320", "--replicas", "2", "--invariant", "LeaderInIsr",
            *LEMMA_FLAGS, "--quiet"]
    assert main(argv) == 0
    local = capsys.readouterr().out.splitlines()
    assert main([*argv, "--engine", "spark"]) == 0
    distributed = capsys.readouterr().out.splitlines()
    assert distributed[:-1] == local[:-1]  # all but the time


@pytest.mark.parametrize("argv,words", [
    (["--master", "local[2]"], "--master applies to --engine spark only"),
    (["--engine", "spark", "--lemma", "Nope"], "the model has no built-in lemma 'Nope'; its lemmas are "),
    (["--engine", "spark", "--invariant", "Nope"], "the symbolic encoding has no invariant Nope; it encodes"),
    (["--engine", "ray"], "argument --engine: invalid choice: 'ray'"),
    (["--engine", "spark", "--lemmas", "no/such/lemmas.py"], "lemma file 'no/such/lemmas.py' does not exist"),
])
def test_bad_input_is_exit_2_with_the_fix(argv, words, capsys):
    # No fixture: each is refused before a Spark session would start.
    code = main(["prove", "classic", "--generation", "kip320", "--replicas", "2", *argv, "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err
