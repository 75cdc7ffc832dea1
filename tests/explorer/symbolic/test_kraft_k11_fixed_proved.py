"""K11-fixed (kraft-kip966 at K11's bounds) proved at any length: `bmc` with the 120 lemmas of the
KRaft lemma sets first proves them inductive together at the configuration's bounds, then finds each
of the scenario's eight invariants inductive with them, and so ends before its first length with "no
violation at any length" (docs/kraft.md, "The `epoch-history-3` sets": the command there, verbatim).

Minutes of z3 (about 6 of CPU), so slow; it lives here, in the suite's second process (`dev`'s
SECOND_HALF), which has the room. The 120 lemmas include every lemma the 113-lemma proof of
LeaderCompleteness in the same section proves, so this one test covers both.
"""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main

from tests.fixtures.paths import ROOT

EIGHT = ("LeaderCompleteness", "LeaderCandidateCompleteness", "ReplicationQuorumSuperset", "LogMatching",
         "MetadataLogMatching", "ConsistentRead", "NoCommittedRecordLostGlobally", "MinIsrRecoveryQuorum")


@pytest.mark.slow
def test_bmc_ends_with_no_violation_at_any_length_on_k11_fixed(capsys):
    argv = ("bmc classic --generation kraft-kip966 --replicas 3 --min-insync-replicas 2 --max-records 1 "
            "--init-isr-size 2 --max-fencings 1 --max-crashes 1 --stops lossy --depth 33 "
            "--lemma-set structural --lemma-set metadata --lemma-set history --lemma-set bounded-inductive "
            "--lemma-set epoch-writer --lemma-set epoch-history --lemma-set epoch-history-2 "
            "--lemma-set epoch-history-3 --lemma-set epoch-history-3-2 --lemma-set leader-completeness-candidates "
            "--lemma-set epoch-history-candidates --lemma-set epoch-history-2-candidates "
            "--lemma-set targets").split()
    assert "isrcheck " + " ".join(argv) in (ROOT / "docs" / "kraft.md").read_text()
    status = main(argv)
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert status == 0, out
    assert "120 lemmas proved inductive at these bounds" in out, out
    for name in EIGHT:
        assert f"bmc: {name} is inductive with the 120 proved lemmas" in out, out
    assert "BMC: no violation at any length: " + ", ".join(EIGHT) + " are inductive with 120 proved lemmas" in out, out
    assert "no violation in traces of" not in out  # no length unrolled
