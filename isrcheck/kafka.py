"""The Kafka model's read API in one import, for properties of one's own (docs/properties-own.md).

- Classic (ZooKeeper-era) states, as ``model.read(state)`` gives them to a property:
  ``ClassicState`` (``s.replica(1).hw``, ``s.controller.leader``, ``s.requests``, ``s.served``...),
  ``Replica``, ``Controller``, ``Request``, ``Record`` (``isrcheck.model.read``).
- KRaft states: ``KraftState`` (``s.broker(2).hw``, ``s.controller.isr``, ``s.controller.elr``,
  ``s.metadata_log``), ``Broker``, ``PartitionRecord`` (``isrcheck.model.kraft.read``).
- The actions, as the classes the model builds (a transition property tests
  ``isinstance(action, ConsumerFetch)`` and reads ``action.offset``): the classic family's by
  name here (``isrcheck.model.actions``, each class documents its fields); the KRaft family's
  under ``kraft`` (``isrcheck.model.kraft.actions``: ``kraft.Fetch``, ``kraft.Shutdown``...).
- ``FieldNotInModel``: what reading a field the model's options leave out raises (exit 2).

Abstracted away: nothing; this module only gathers names.
"""

from isrcheck.model.actions import (
    AvailabilityZoneFailure,
    BecomeFollower,
    BecomeFollowerAndTruncate,
    BecomeLeader,
    BrokerCrash,
    BrokerRestart,
    ConsumerFetch,
    ControlledShutdown,
    ControllerElectLeader,
    ControllerShrinkIsr,
    FlushLog,
    FollowerReplicate,
    FollowerTruncate,
    FollowerUpdateHighWatermark,
    LeaderExpandIsr,
    LeaderIncHighWatermark,
    LeaderShrinkIsr,
    LeaderWrite,
    UncleanLeaderElection,
)
from isrcheck.model.kraft import actions as kraft
from isrcheck.model.kraft.read import Broker, KraftState, PartitionRecord
from isrcheck.model.read import ClassicState, Controller, FieldNotInModel, Record, Replica, Request

__all__ = [
    "AvailabilityZoneFailure", "BecomeFollower", "BecomeFollowerAndTruncate", "BecomeLeader", "Broker", "BrokerCrash",
    "BrokerRestart", "ClassicState", "ConsumerFetch", "ControlledShutdown", "Controller", "ControllerElectLeader",
    "ControllerShrinkIsr", "FieldNotInModel", "FlushLog", "FollowerReplicate", "FollowerTruncate",
    "FollowerUpdateHighWatermark", "KraftState", "LeaderExpandIsr", "LeaderIncHighWatermark", "LeaderShrinkIsr",
    "LeaderWrite", "PartitionRecord", "Record", "Replica", "Request", "UncleanLeaderElection", "kraft",
]
