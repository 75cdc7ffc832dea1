"""The consumer and rack entries of the bug catalogue (docs/bugs.md: K12, K13, and the
availability-zone case of rack-aware placement), each with its fixed counterpart checked within
the same bounds. Registered in the ``isrcheck.scenarios`` entry-point group as
``consumers = "isrcheck.model.scenarios.consumers:scenarios"``.

Trace lengths count states, the initial one included, and are the shortest possible (breadth-first
search). docs/consumers.md tells each trace in Kafka terms.
"""

from __future__ import annotations

from isrcheck.explorer.scenarios import Scenario

_CLASSIC = {"log_size": 2, "max_records": 2, "max_leader_epoch": 2}
# K13 needs two leaders (epochs 0 and 1) each writing one record at offset 0: the smallest bounds.
_K13 = {"log_size": 1, "max_records": 2, "max_leader_epoch": 1}
# The AZ case: replication factor 3, one record, an election (epoch 0), the AZ failure (epoch 1) and
# a re-election after it (epoch 2); acks=all with min.insync.replicas=2, KIP-966's unclean-shutdown rule.
_AZ = {"replicas": 3, "log_size": 1, "max_records": 1, "max_leader_epoch": 2, "acks": "all",
       "min_insync_replicas": 2, "azs": 3, "max_az_failures": 1, "kip966_unclean_recovery": True}
_K12_PROPS = ("ConsistentRead", "ReadBelowHighWatermark", "RecordConsumed", "FollowerCanServe")


def scenarios() -> list[Scenario]:
    return [
        Scenario(
            id="K12",
            title="Consumers read from leaders and followers (KIP-392): every read is committed and stays",
            model="classic",
            options={"generation": "kip320", "replicas": 2, **_CLASSIC, "consumer_reads": "any"},
            properties=_K12_PROPS,
            expect="holds",
            story=(
                "Consumers fetch from any replica, each serving only below its own high watermark. Under "
                "KIP-320 every record a consumer is served stays at its offset in the established leader's "
                "log, whichever replica served it; followers do serve reads (FollowerCanServe), and a "
                "follower's HW may lag or go back without harm. tests/properties/test_consumers_k12_k13.py also checks "
                "3 replicas (slow)."
            ),
        ),
        Scenario(
            id="K12-on-fetch",
            title="K12 with truncation on fetch (Kafka 2.7+, diverging epoch, truncate first)",
            model="classic",
            options={"generation": "kip320", "replicas": 2, **_CLASSIC, "consumer_reads": "any",
                     "truncation": "on-fetch"},
            properties=_K12_PROPS,
            expect="holds",
            story=(
                "Followers no longer truncate when they become followers: the leader tells them in a fetch "
                "response that their log diverges, and they truncate before taking any new high watermark "
                "(apache/kafka#13230). Every read stays committed."
            ),
        ),
        Scenario(
            id="K13",
            title="A follower applies the fetch response's HW before truncating (KAFKA-14704)",
            model="classic",
            options={"generation": "kip320", "replicas": 2, **_K13, "consumer_reads": "any",
                     "truncation": "on-fetch-hw-first"},
            properties=("ConsistentRead",),
            expect="violated",
            trace_length=12,
            story=(
                "A deposed leader keeps an uncommitted record at offset 0 when it becomes follower. The new "
                "leader, whose own record at offset 0 is committed, answers its fetch with a diverging epoch "
                "and its high watermark 1. The follower applies the high watermark first: its HW now covers "
                "the record it is about to truncate, and a consumer reading from it (KIP-392) is served "
                "that record, which is in no committed log."
            ),
        ),
        Scenario(
            id="K13-fixed",
            title="Truncate before applying the fetch response's HW (apache/kafka#13230)",
            model="classic",
            options={"generation": "kip320", "replicas": 2, **_K13, "consumer_reads": "any",
                     "truncation": "on-fetch"},
            properties=("ConsistentRead", "ReadBelowHighWatermark", "RecordConsumed", "FollowerCanServe"),
            expect="holds",
            story=(
                "The same bounds with the fixed order: a follower with a diverging log truncates first and "
                "takes the leader's HW only with a later, matching fetch; no consumer is served a record "
                "that is not committed."
            ),
        ),
        Scenario(
            id="AZ-naive",
            title="Naive placement puts two of three replicas in one AZ: one AZ failure loses an acked record",
            model="classic",
            options={"generation": "kip320", **_AZ, "placement": "naive"},
            properties=("AckedRecordSurvives",),
            expect="violated",
            trace_length=9,
            story=(
                "Three replicas on consecutive brokers of a cluster with two brokers per AZ: replicas 1 and 2 "
                "share az1, replica 3 is in az2. The controller takes replica 3 out of the ISR (its broker "
                "looked dead); the leader acknowledges a record (acks=all) once the two-member ISR has it, as "
                "min.insync.replicas=2 allows. az1 loses power: both copies were unflushed, and no replica, "
                "running or stopped, holds the record any more."
            ),
        ),
        Scenario(
            id="AZ-rack-aware",
            title="Rack-aware placement, one replica per AZ: no single AZ failure loses an acked record",
            model="classic",
            options={"generation": "kip320", **_AZ, "placement": "rack-aware"},
            properties=("AckedRecordSurvives", "RecordAcknowledged", "BrokerStoppedAndBack"),
            expect="holds",
            story=(
                "The same cluster and bounds with rack-aware assignment (one replica in each of az1, az2, "
                "az3): an acknowledged record is on two replicas in two zones, so one zone's power failure "
                "leaves a copy; with KIP-966's rule the broker that lost it cannot be re-elected and "
                "truncate the survivor. Without that rule the checker shows the loss anyway "
                "(tests/model/test_consumers_racks.py)."
            ),
            check_options={"symmetry": True},
        ),
    ]
