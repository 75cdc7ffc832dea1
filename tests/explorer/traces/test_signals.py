"""Operator signals (``Model.signals``): the classic model's values, one line per state in text
traces, ``#meta.signals`` in ITF JSON, and nothing for a model that defines none."""

from __future__ import annotations

import json
from dataclasses import dataclass

from isrcheck.explorer.cli.main import main
from isrcheck.explorer.contract import Property
from isrcheck.explorer.traces.itf import trace_to_itf
from isrcheck.explorer.traces.replay import replay_states
from isrcheck.explorer.traces.text import render_trace, signals_line

import isrcheck
from tests.fixtures.classic import classic


def violation(model, prop):
    result = isrcheck.check(model, properties=[prop])
    return result.violations[0]


def test_signals_line_is_compact_and_hides_lowered_flags():
    line = signals_line({"leader": 1, "awaiting LeaderAndIsr": False, "ISR": "2/3", "under-replicated": True,
                         "stopped": [], "lag": {"r2": 1, "r3": 0}})
    assert line == "leader 1 | ISR 2/3 | under-replicated | lag r2=1 r3=0"
    assert signals_line({"leader": None, "offline": True, "lag": {}}) == "leader - | offline"
    assert signals_line(None) == "" and signals_line({}) == ""


def test_classic_signals_follow_the_k1_trace():
    model = classic(generation="truncate-to-hw")
    v = violation(model, "StrongIsr")
    sigs = [model.signals(s) for s in v.trace.states]
    assert sigs[0] == {"leader": None, "awaiting LeaderAndIsr": False, "offline": True, "ISR": "2/2",
                       "under-replicated": False, "lag": {}}
    # The controller names a leader before it adopts the epoch: "awaiting LeaderAndIsr" until BecomeLeader.
    elected = next(i for i, a in enumerate(v.trace.actions, 1) if type(a).__name__ == "ControllerElectLeader")
    assert sigs[elected]["leader"] == v.trace.actions[elected - 1].leader and sigs[elected]["awaiting LeaderAndIsr"]
    # Lag is the leader's log end offset minus the follower's, at every step.
    for s, sig in zip(v.trace.states, sigs, strict=True):
        view = model.state_view(s)
        leader = view["quorumState"]["leader"]
        if leader is not None:
            other = 3 - leader
            expect = len(view["replicaLog"][str(leader)]) - len(view["replicaLog"][str(other)])
            if expect >= 0:
                assert sig["lag"] == {f"r{other}": expect} and "ahead" not in sig
            else:  # a longer follower log is shown as how far ahead it is, never as a negative lag
                assert sig["lag"] == {} and sig["ahead"] == {f"r{other}": -expect}


def test_under_replicated_when_the_isr_shrinks_and_stopped_brokers_shown():
    model = classic(acks="all", max_crashes=1, stops="crash", unclean_election="any")
    v = violation(model, "AckedRecordNotLost")
    sigs = [model.signals(s) for s in v.trace.states]
    for s, sig in zip(v.trace.states, sigs, strict=True):
        isr = model.state_view(s)["quorumState"]["isr"]
        assert sig["ISR"] == f"{len(isr)}/2" and sig["under-replicated"] == (len(isr) < 2)
        assert sig["stopped"] == model.state_view(s)["stoppedBrokers"]
    assert any(sig["under-replicated"] for sig in sigs) and any(sig["stopped"] for sig in sigs)


def test_text_trace_has_one_signals_line_per_state():
    model = classic(generation="truncate-to-hw")
    v = violation(model, "StrongIsr")
    text = render_trace(model, v.trace)
    lines = [ln for ln in text.splitlines() if ln.startswith("    [signals] ")]
    assert len(lines) == len(v.trace) == 10
    assert lines[0] == "    [signals] leader - | offline | ISR 2/2"
    assert lines[1] == "    [signals] leader 1 | awaiting LeaderAndIsr | ISR 2/2 | lag r2=0"


def test_itf_carries_signals_in_meta_and_replay_ignores_them(tmp_path):
    model = classic(generation="truncate-to-hw")
    v = violation(model, "StrongIsr")
    data = trace_to_itf(model, v.trace, {"model": "classic", "options": {"generation": "truncate-to-hw"}})
    assert data["states"][0]["#meta"]["signals"] == {
        "leader": None, "awaiting LeaderAndIsr": False, "offline": True, "ISR": "2/2", "under-replicated": False,
        "lag": {}}
    assert "signals" not in data["vars"] and all("signals" not in st for st in data["states"])
    # A JSON round trip (what a user's tool reads) keeps them, and replay still matches every state.
    data = json.loads(json.dumps(data))
    assert data["states"][4]["#meta"]["signals"]["leader"] == 1
    replayed = replay_states(model, data["states"])
    assert replayed.states == v.trace.states


def test_cli_prints_signals_and_writes_them(capsys, tmp_path):
    path = tmp_path / "k1.itf.json"
    code = main(["check", "classic", "--generation", "truncate-to-hw", "--invariant", "StrongIsr", "--quiet",
                 "--trace-json", str(path)])
    out = capsys.readouterr().out
    assert code == 1 and out.count("[signals] ") == 10
    states = json.loads(path.read_text())["states"]
    assert all("signals" in st["#meta"] for st in states)


@dataclass(frozen=True)
class Counter:
    """A model without signals: traces look exactly as before."""

    def init_states(self):
        return [0]

    def successors(self, s):
        return [("inc", s + 1)] if s < 3 else []

    def properties(self):
        return [Property.always("Small", lambda s: s < 3)]


def test_a_model_without_signals_gets_no_signals_line_or_meta():
    model = Counter()
    v = violation(model, "Small")
    assert "[signals]" not in render_trace(model, v.trace)
    data = trace_to_itf(model, v.trace, {"model": "x"})
    assert all(set(st["#meta"]) == {"index", "action"} for st in data["states"])
