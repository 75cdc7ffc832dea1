"""Each catalogue story says what its trace shows (issue 29: K4's story named a truncation against
"a leader of another epoch" where the trace truncates against a replica that never led; L1's said
"the follower lags" where the follower never received its LeaderAndIsr).

Each claim pairs a phrase of the story with a check of the scenario's trace, so a story that is
rewritten away from its trace, or a scenario whose trace changes under its story, fails here."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from isrcheck.explorer.check import check
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import get_scenario


class Run:
    """A scenario's counterexample: its actions (name and fields) and the views of its states."""

    def __init__(self, scenario_id: str) -> None:
        sc = get_scenario(scenario_id)
        self.story = sc.story
        model = build_model(sc.model, dict(sc.options))
        result = check(model, properties=list(sc.properties), **dict(sc.check_options))
        self.trace = result.violations[0].trace
        self.views = [model.state_view(s) for s in self.trace.states]
        self.actions = [a for a in self.trace.actions if a is not None]

    def steps(self, name: str, **fields: Any) -> list[int]:
        """Positions (in ``actions``) of the steps named ``name`` (as the trace prints them) whose
        fields have these values."""
        return [i for i, a in enumerate(self.actions) if repr(a).split("(")[0] == name and all(
            getattr(a, k) == v for k, v in fields.items())]

    def first(self, name: str, **fields: Any) -> int:
        found = self.steps(name, **fields)
        assert found, f"no {name}({fields}) in the trace"
        return found[0]

    @property
    def last(self) -> dict[str, Any]:
        return self.views[-1]


@cache
def run(scenario_id: str) -> Run:
    return Run(scenario_id)


def _k4(r: Run) -> None:
    assert len(r.steps("ControllerElectLeader")) == 3
    stale = r.first("BecomeFollowerAndTruncate", replica=3, leader=1, epoch=0)
    fetch = r.first("FollowerReplicate", follower=3, leader=1)
    commit = r.first("LeaderIncHighWatermark", leader=1, hw=1)
    late = r.first("BecomeFollowerAndTruncate", replica=3, leader=2, epoch=1)
    assert stale < fetch < commit < late and r.actions[-1] is r.actions[late]
    assert r.steps("BecomeLeader", replica=2) == [] and r.last["replicaLog"]["2"] == []  # never led, empty log
    assert r.last["replicaLog"]["3"] == [] and 3 in r.last["quorumState"]["isr"]


def _l1(r: Run) -> None:
    shrink = r.first("LeaderShrinkIsr", leader=1, replica=2)
    # The follower never received its LeaderAndIsr: no step made it a follower, its epoch is unset.
    assert [a for a in r.actions[:shrink] if getattr(a, "replica", None) == 2] == []
    assert r.views[shrink + 1]["replicaState"]["2"]["leaderEpoch"] == -1
    assert r.first("BrokerCrash", replica=1) > shrink
    assert r.last["quorumState"]["leader"] is None and r.last["stoppedBrokers"] == [1]
    assert all(v["replicaState"]["1"]["hw"] == 0 for v in r.views)  # nothing was committed


def _k8(r: Run) -> None:
    shrink = r.first("LeaderShrinkIsr", leader=1, replica=2)
    assert all(v["replicaState"]["2"]["leaderEpoch"] == -1 and v["replicaLog"]["2"] == []
               for v in r.views[: shrink + 1])
    assert shrink < r.first("LeaderWrite", leader=1) < r.first("BrokerCrash", replica=1)
    assert r.first("UncleanLeaderElection", leader=2) > shrink
    assert r.last["ackedRecords"] == [0] and r.last["replicaLog"]["2"] == []


def _k7(r: Run) -> None:
    fetch, fence = r.first("Fetch", follower=2), r.first("FenceBroker", broker=2)
    ask = r.first("SendAlterPartitionRequest", leader=1)
    write = r.first("WriteRecordToLeader", leader=1, value="A")
    unfence = r.first("UnfenceBroker", broker=2)
    accept = r.first("ReceiveAlterPartitionRequest", leader=1, result="accepted")
    assert fetch < fence < ask < write < unfence < accept
    assert r.views[write + 1]["partitionData.hwm.1"] == 1  # committed at once, with ISR {1}


def _k11(r: Run) -> None:
    write, fence = r.first("WriteRecordToLeader", leader=1, value="A"), r.first("FenceBroker", broker=2)
    shutdown = r.first("UncleanShutdown", broker=1)
    assert write < fence < shutdown < r.first("BrokerStart", broker=1) < r.first("ReceiveBrokerRegRequest", broker=1)
    assert r.actions[r.first("ReceiveBrokerRegRequest", broker=1)].elected == 1
    assert r.last["partitionData.log.1"] == [] and r.last["invTrueHwm"] == 1


CLAIMS: dict[str, tuple[list[str], Callable[[Run], None]]] = {
    "K4": (["never became leader", "whose log is empty", "epoch-0 request naming leader 1", "keeps it in the ISR"],
           _k4),
    "L1": (["has not fetched yet", "LeaderAndIsr request has not reached it", "none was committed"], _l1),
    "K8": (["before the follower has fetched anything", "acks=all", "never had the record"], _k8),
    "K7": (["fences it", "proposes ISR {1,2}", "commits A at once", "accepts ISR {1,2}"], _k7),
    "K11": (["Leader 1 writes A", "shuts down uncleanly", "elected again"], _k11),
}


@pytest.mark.parametrize("scenario_id", sorted(CLAIMS))
def test_each_story_says_what_its_trace_shows(scenario_id):
    phrases, holds = CLAIMS[scenario_id]
    r = run(scenario_id)
    assert [p for p in phrases if p not in r.story] == [], "the story no longer says this"
    holds(r)
