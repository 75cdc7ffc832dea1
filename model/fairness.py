"""Which steps of the replication model are fairly scheduled, for liveness properties
(``isrcheck.properties.liveness``): the model's ``fairness()`` and ``action_family()`` (``isrcheck.explorer.contract``).

An action's family is its step name, and for a step a broker takes, the broker too
(``FollowerReplicate r2``): weak fairness per broker is TLA+'s ``\\A r : WF(FollowerReplicate(r))``,
so one follower fetching forever does not excuse another that never fetches.

Weakly fair (Kafka does these on its own while the broker runs): the controller electing a leader
from the live ISR and, when ``unclean.leader.election.enable`` is on, electing uncleanly; a broker
applying a LeaderAndIsr request (``BecomeLeader``, ``BecomeFollower*``); followers fetching and
truncating; the leader expanding the ISR and advancing its high watermark.

Not fair (the environment, which may do them or stop doing them for ever): producer writes,
the leader's lag-based ISR shrink and the controller's failure detection (``*ShrinkIsr``), broker
stops and restarts (a broker may stay down for ever: that is the "last ISR member lost" case),
log flushes, consumer fetches, zone failures.

``STRONG`` names families a run may assume strongly fair instead (``--fairness``); the default
table is weak only, and docs/liveness.md reports which property needs more.
"""

from __future__ import annotations

from typing import Any

# Which field of an action (``isrcheck.model.actions``) names the broker that takes the step; the
# controller's steps have none.
ACTOR = {
    "BecomeLeader": "replica",
    "BecomeFollowerAndTruncate": "replica",
    "BecomeFollower": "replica",
    "FollowerReplicate": "follower",
    "FollowerTruncate": "follower",
    "FollowerUpdateHighWatermark": "follower",
    "LeaderWrite": "leader",
    "LeaderExpandIsr": "leader",
    "LeaderShrinkIsr": "leader",
    "LeaderIncHighWatermark": "leader",
    "BrokerRestart": "replica",
    "BrokerCrash": "replica",
    "ControlledShutdown": "replica",
    "FlushLog": "replica",
}

CONTROLLER_WEAK = ("ControllerElectLeader", "UncleanLeaderElection")
BROKER_WEAK = ("BecomeLeader", "BecomeFollowerAndTruncate", "BecomeFollower", "FollowerReplicate",
               "FollowerTruncate", "FollowerUpdateHighWatermark", "LeaderExpandIsr", "LeaderIncHighWatermark")


def action_family(action: Any) -> str:
    name = type(action).__name__
    field = ACTOR.get(name)
    return name if field is None else f"{name} r{getattr(action, field)}"


def fairness_table(replicas: int) -> dict[str, str]:
    table = dict.fromkeys(CONTROLLER_WEAK, "weak")
    for step in BROKER_WEAK:
        for r in range(1, replicas + 1):
            table[f"{step} r{r}"] = "weak"
    return table
