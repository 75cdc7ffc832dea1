"""The liveness entries of the scenario catalogue: both sides of Kafka's durability/availability
trade-off, and what weak fairness does and does not promise. Registered in the
``isrcheck.scenarios`` entry-point group (``liveness = "isrcheck.model.scenarios.liveness:scenarios"``).

Each checks an opt-in leads-to property of ``isrcheck.properties.liveness`` under the model's fairness
(``isrcheck.model.fairness``: the steps Kafka takes on its own are weakly fair; failures, restarts, writes
and lag-based ISR shrinks are not). A violated entry's length counts the lasso's states (the loop's
closing step is not a new state). docs/liveness.md tells each in Kafka terms.
"""

from __future__ import annotations

from isrcheck.explorer.scenarios import Scenario

_BOUNDS = {"generation": "kip320", "replicas": 2, "log_size": 2, "max_records": 2, "max_leader_epoch": 2}
_CRASH = {**_BOUNDS, "acks": "all", "max_crashes": 1, "stops": "crash"}


def scenarios() -> list[Scenario]:
    return [
        Scenario(
            id="L1",
            title="Unclean election off: losing the last ISR member leaves the partition offline for ever",
            model="classic",
            options=_CRASH,
            properties=("EventuallyOnline",),
            expect="violated",
            trace_length=5,
            story=(
                "The leader shrinks the ISR to itself: its follower has not fetched yet (the controller's "
                "LeaderAndIsr request has not reached it). Then the leader's broker crashes. The controller "
                "may elect only a live ISR member and there is none; the follower is alive and lacks no "
                "committed record (none was committed), but unclean.leader.election.enable=false forbids it. "
                "If the crashed broker never comes back (a lost disk, a dead machine), the partition is "
                "offline for ever: the lasso stutters in the last state, where no step Kafka takes on its "
                "own is enabled. The records are safe (K8-fixed) and unavailable."
            ),
        ),
        Scenario(
            id="L1-unclean",
            title="Unclean election on: the partition always comes back online (and K8 shows the cost)",
            model="classic",
            options={**_CRASH, "unclean_election": "any"},
            properties=("EventuallyOnline",),
            expect="holds",
            story=(
                "The same crash with unclean.leader.election.enable=true: the controller elects the live "
                "out-of-sync follower, which takes over, so every fair behaviour brings the partition back. "
                "Run K8 with the same options to see the other side: the new leader never had a record the "
                "producer was told was written with acks=all."
            ),
        ),
        Scenario(
            id="L2",
            title="A live ISR member is always elected, given weak fairness of election and BecomeLeader",
            model="classic",
            options=_CRASH,
            properties=("LeaderEventuallyElected",),
            expect="holds",
            story=(
                "Whenever the partition has no established leader but some ISR member runs, the controller "
                "eventually elects one and it takes the LeaderAndIsr request. Without weak fairness of "
                "ControllerElectLeader or of BecomeLeader the property fails (bench/liveness_fairness.py)."
            ),
        ),
        Scenario(
            id="L3",
            title="A deposed leader that never hears of its successor leaves an acks=all write unanswered",
            model="classic",
            options=_CRASH,
            properties=("AckedWriteEventuallyAnswered",),
            expect="violated",
            trace_length=6,
            story=(
                "Broker 1 leads and appends a record; the controller moves leadership to broker 2, which "
                "crashes before taking over. Under KIP-320 broker 1 may only follow a leader that already "
                "leads at that epoch, so it never learns it was deposed: it still presumes leadership, its "
                "high watermark cannot advance, and the producer's acks=all request is neither acknowledged "
                "nor refused. In Kafka only the producer's request.timeout.ms ends it. No fairness helps: "
                "nothing Kafka does on its own is enabled there."
            ),
        ),
    ]
