"""The options that ``bmc`` encodes beyond acks, crash and lossy stops and unclean election (issue
26): z3 reads their steps from the one description (``model/steps/failures.py``), so its successors
equal the explicit ones on every reachable state of a small configuration, and BMC gives the
catalogue's answers (``model/scenarios/durability.py``).

Small bounds on purpose (log size 1, epochs 0..1): each configuration costs about a second.
"""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.explorer.symbolic.ops import ConcreteOps
from isrcheck.explorer.symbolic.relation import concrete_successors
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic
from tests.fixtures.states import reachable
from tests.model.test_symbolic_equivalence import assert_same

SMALL = {"log_size": 1, "max_leader_epoch": 1}

# KIP-966's rule reaches three steps: a lossy stop beside plain crashes (its own removal), a lossy
# stop alone (the sole ISR member leaves too) and unclean election (an empty ISR counts as "every
# member down").
KIP966_CRASH_LOSSY = {**SMALL, "max_crashes": 1, "stops": "crash+lossy", "unclean_election": "any",
                      "kip966_unclean_recovery": True}
KIP966_LOSSY = {**SMALL, "generation": "kip101", "max_crashes": 1, "stops": "lossy", "acks": "1",
                "unclean_election": "highest-last-epoch", "kip966_unclean_recovery": True}
# K10-fixed (model/scenarios/durability.py) at its catalogue bounds.
K10_FIXED = {"acks": "all", "min_insync_replicas": 2, "max_crashes": 1, "stops": "lossy",
             "kip966_unclean_recovery": True}


@pytest.mark.parametrize("options,at_least", [
    pytest.param(KIP966_CRASH_LOSSY, 3000, id="kip966-crash+lossy-unclean-any"),
    pytest.param(KIP966_LOSSY, 3000, id="kip966-lossy-unclean-highest-acks-1"),
])
def test_every_reachable_state(options: dict, at_least: int) -> None:
    model = classic(**options)
    sym, ops = make_symbolic(model), ConcreteOps()
    states = reachable(model)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == len(states) >= at_least


def test_k10_fixed_clean_where_the_rule_less_form_breaks() -> None:
    """K10-min-isr-2 (the same options without KIP-966's rule) loses an acknowledged record in 13
    states (tests/model/test_symbolic_durability.py); with the rule nothing within 13. About 2 s of CPU."""
    result = bmc(make_symbolic(classic(**K10_FIXED)), depth=13, properties=["AckedRecordNotLost"])
    assert result.verdict == "no violation" and result.depth == 13


def test_cli_bmc_accepts_kip966(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bmc", "classic", "--max-crashes", "1", "--stops", "lossy", "--kip966-unclean-recovery",
                   "--depth", "3", "--quiet"])
    assert status == 0, capsys.readouterr().err
