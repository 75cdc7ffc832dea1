"""KIP-853's ValuesEventuallyAcked on the quorum model (``--max-reconfigs``): what its lasso shows that
the other liveness properties miss, and its refusals by name. The catalogue's Q-values-acked and
Q-values-unacked run in tests/model/test_scenarios.py; here only the cheap complements."""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model

import isrcheck

UNACKED = {"voters": 2, "values": 1, "max_elections": 0, "max_reconfigs": 1}


def quorum(**options):
    return build_model("quorum", options)


def test_the_lone_leaders_value_is_unacked_while_the_other_liveness_properties_hold():
    result = isrcheck.check(quorum(**UNACKED), properties=["ValuesEventuallyAcked", "ValuesNotStuck",
                                                          "ReconfigurationNotStuck"], workers=1)
    assert [v.property for v in result.violations] == ["ValuesEventuallyAcked"]
    steps = [repr(step.action) for step in result.violations[0].trace.steps]
    assert "RemoveVoter(1, epoch=1, remove 2: voters{1})" in steps and "ClientRequest(1, value=A)" in steps


def test_a_voter_set_of_one_that_grows_acknowledges_its_value():
    result = isrcheck.check(quorum(voters=1, joining=1, values=1, max_elections=0, max_reconfigs=1),
                            properties=["ValuesEventuallyAcked"], workers=1)
    assert result.violations == [] and result.complete


@pytest.mark.parametrize("args, words", [
    (["--max-reconfigs", "1", "--max-fetches", "2"], "left out under --max-fetches"),
    ([], "KIP-853's: add --max-reconfigs 1"),
])
def test_it_is_refused_by_name_where_it_cannot_apply(capsys, args, words):
    assert main(["check", "quorum", "--quiet", *args, "--property", "ValuesEventuallyAcked"]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
