"""Actions read without a key: no sentinel values in a trace's text (issue 29's text signals).
A KRaft controller step names whom it elected (``elected=2``, ``elected=NoLeader``) and says
nothing when the leader is unchanged; a broker crash that keeps its log shows no ``log_end``."""

from __future__ import annotations

from isrcheck.explorer.check import check
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import get_scenario
from isrcheck.model.actions import BrokerCrash
from isrcheck.model.kraft.actions import FenceBroker, ReceiveBrokerRegRequest, Shutdown, UnfenceBroker


def test_kraft_controller_steps_name_whom_they_elected_and_only_then():
    assert repr(FenceBroker(2, None)) == "FenceBroker(broker=2)"
    assert repr(FenceBroker(1, "none")) == "FenceBroker(broker=1, elected=NoLeader)"
    assert repr(UnfenceBroker(2, 2)) == "UnfenceBroker(broker=2, elected=2)"
    assert repr(ReceiveBrokerRegRequest(1, 4, False, 1)) == "ReceiveBrokerRegRequest(broker=1, broker_epoch=4, " \
                                                            "unclean=False, elected=1)"
    assert repr(Shutdown("UncleanShutdown", 1, False, "none")) == "UncleanShutdown(broker=1, elected=NoLeader)"


def test_a_crash_that_keeps_its_log_shows_no_log_end():
    assert repr(BrokerCrash(1, 1, False, -1)) == "BrokerCrash(replica=1, epoch=1, lost_unflushed=False)"
    assert repr(BrokerCrash(1, 1, True, 0)) == "BrokerCrash(replica=1, epoch=1, lost_unflushed=True, log_end=0)"


def test_no_trace_of_the_catalogue_shows_a_sentinel():
    for sid in ("K7", "K11", "L1", "K8"):
        sc = get_scenario(sid)
        model = build_model(sc.model, dict(sc.options))
        result = check(model, properties=list(sc.properties), **dict(sc.check_options))
        text = str(result.violations[0])
        for bad in ("elected=None", "elected='none'", "log_end=-1", "=-1 ", "taking over"):
            assert bad not in text, (sid, bad)
