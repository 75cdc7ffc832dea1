"""The replication model's liveness properties (``isrcheck.properties.liveness``) under its fairness
(``isrcheck.model.fairness``): both sides of the unclean-election trade-off on one model, which fairness a
property needs, and that a Kafka lasso replays from its ITF file."""

from __future__ import annotations

from isrcheck.explorer.cli.main import main

from isrcheck import check
from tests.fixtures.classic import classic

BOUNDS = {"generation": "kip320", "replicas": 2, "log_size": 2, "max_records": 2, "max_leader_epoch": 2}
CRASH = {**BOUNDS, "acks": "all", "max_crashes": 1, "stops": "crash"}


def test_liveness_properties_are_opt_in_leads_to():
    model = classic(**CRASH)
    live = {p.name: p for p in model.properties() if p.kind.is_liveness}
    assert set(live) == {"LeaderEventuallyElected", "EventuallyOnline", "FollowerEventuallyInIsr",
                         "AckedWriteEventuallyAnswered"}
    assert not any(p.default for p in live.values())
    assert check(classic(**BOUNDS)).graph is None  # a default run stays a safety run


def test_unclean_election_trades_records_for_availability():
    on = classic(**{**CRASH, "unclean_election": "any"})
    result = check(on, properties=["EventuallyOnline", "AckedRecordNotLost"], stop_at_first=False)
    assert {v.property for v in result.violations} == {"AckedRecordNotLost"}  # K8: online, record lost
    off = classic(**CRASH)
    result = check(off, properties=["EventuallyOnline", "AckedRecordNotLost"], stop_at_first=False)
    assert {v.property for v in result.violations} == {"EventuallyOnline"}  # records kept, offline for ever
    lasso = result.violation("EventuallyOnline").trace
    assert lasso.loop_action is None and lasso.loop == len(lasso) - 1  # stutters: nothing fair is enabled
    assert type(lasso.steps[-1].action).__name__ == "BrokerCrash"


def test_election_needs_weak_fairness_of_election_and_become_leader():
    model = classic(**BOUNDS)
    table = model.fairness()
    assert check(model, properties=["LeaderEventuallyElected"]).ok
    for step in ("ControllerElectLeader", "BecomeLeader"):
        weaker = {f: k for f, k in table.items() if not f.startswith(step)}
        assert not check(model, properties=["LeaderEventuallyElected"], fairness=weaker).ok, step


def test_kafka_lasso_replays_from_its_itf_file(capsys, tmp_path):
    path = tmp_path / "l1.itf.json"
    assert main(["scenario", "L1", "--quiet", "--trace-json", str(path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "Replayed 5 states; every step matches the model." in out
    assert "=> EventuallyOnline fails at state 5: never satisfied on this lasso, whose loop is fair" in out
