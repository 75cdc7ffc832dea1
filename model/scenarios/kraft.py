"""The KRaft-era entries of the bug catalogue (K7, K11) and the fixes that close them, at the bounds
of the TLC run that anchors them: Vanlightly's kraft/v3.5 spec with 3 brokers, replication factor
3, min ISR 2, one value, initial ISR {1, 2}, at most one unclean (lossy) shutdown and one fencing,
no clean shutdown, no leader-initiated shrink, no reassignment; and KIP-455's reassignment at the
bounds of the TLC runs that docs/kraft.md compares with. Registered in the
``isrcheck.scenarios`` entry-point group (``kraft = "isrcheck.model.scenarios.kraft:scenarios"``);
docs/kraft.md tells each trace in Kafka terms.

Trace lengths count states, the initial one included (TLC's depth): K11 is 8 here as in TLC.
"""

from __future__ import annotations

from isrcheck.explorer.scenarios import Scenario
from isrcheck.model.kraft.fairness import WEAK

# The anchor's constants as the model's options (isrcheck.model.factory): BrokerCount = InitReplicationFactor =
# replicas, MinISR, |Values| = max_records, InitIsrSize, FenceBrokerLimit, UncleanShutdownLimit.
ANCHOR = {"replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2, "max_fencings": 1,
          "max_crashes": 1, "stops": "lossy"}
# K7 needs no shutdown: without one the 3.5 spec's last-replica-standing hole (K11) stays closed.
NO_SHUTDOWN = {**ANCHOR, "max_crashes": 0, "stops": "all"}
# The lost registration needs two shutdowns of one broker (one of each kind) and nothing else.
LOST_REGISTRATION = {"replicas": 2, "min_insync_replicas": 2, "max_records": 1, "max_crashes": 1, "stops": "all"}
# Reassignment (KIP-455): replication factor 2 on 3 brokers (BrokerCount 3, InitReplicationFactor 2),
# one reassignment (ReassignmentLimit 1), the TLC configuration of docs/kraft.md's reassignment section.
REASSIGNMENT = {"replicas": 2, "spare_brokers": 1, "max_reassignments": 1, "min_insync_replicas": 2,
                "max_records": 1, "max_fencings": 0}


def scenarios() -> list[Scenario]:
    return [*_named(), *reassignment_scenarios(), *liveness_scenarios()]


# Two brokers, both may lose their log: KIP-966's leaderless end. The specs' fairness without the
# leader's SendAlterPartitionRequest: too weak for a reassignment to complete.
BOTH_LOSE_DATA = {"replicas": 2, "min_insync_replicas": 2, "max_records": 1, "max_fencings": 0, "max_crashes": 2,
                  "stops": "lossy"}
NO_FAIR_ALTER_PARTITION = {f"{step} b{b}": "weak" for step in WEAK if step != "SendAlterPartitionRequest"
                           for b in (1, 2, 3)}


def liveness_scenarios() -> list[Scenario]:
    """The specs' remaining liveness under their fairness, and under fairness too weak for it."""
    return [
        Scenario(
            id="KR-no-leader",
            title="KIP-966: after both replicas lose their logs, no leader is ever elected (by design)",
            model="classic",
            options={"generation": "kraft-kip966", **BOTH_LOSE_DATA},
            properties=("EventuallyLeaderElected",),
            expect="violated",
            trace_length=11,
            story=(
                "Broker 1 shuts down losing its log (broker 2 leads, ISR {2}, ELR {1}), then broker 2 "
                "does too: ISR empty, ELR {1}, no leader. Both restart and register without a broker "
                "epoch (unclean), so the controller takes each out of the ISR and the ELR: nothing is "
                "eligible, and under every fairness the specs state the partition stays leaderless. "
                "KIP-966 trades this availability for durability (the 3.5 controller re-elects the last "
                "replica standing, and loses the record: K11); only unclean recovery, not in the specs, "
                "elects again. KR-leader-3.5 is the same bounds on 3.5."
            ),
        ),
        Scenario(
            id="KR-leader-3.5",
            title="Kafka 3.5 always elects a leader again (the last replica standing), at durability's cost",
            model="classic",
            options={"generation": "kraft-3.5", **BOTH_LOSE_DATA},
            properties=("EventuallyLeaderElected",),
            expect="holds",
            story=(
                "The bounds of KR-no-leader on Kafka 3.5: the ISR never shrinks below one member, so the "
                "last one is elected again when it is back, whatever it lost. The partition always gets "
                "a leader; K11 shows the record this can cost."
            ),
        ),
        Scenario(
            id="KR-reassignment-stalls",
            title="KRaft reassignment never completes if the leader's AlterPartition is not fairly scheduled",
            model="classic",
            options={"generation": "kraft-kip966", **REASSIGNMENT},
            properties=("EventuallyReassignmentCompletes",),
            expect="violated",
            trace_length=7,
            check_options={"fairness": NO_FAIR_ALTER_PARTITION},
            story=(
                "The specs' fairness less one step: SendAlterPartitionRequest. An operator adds broker 3; "
                "it applies the record, follows and catches up, and then nothing brings it into the ISR: "
                "the fetches go on for ever and the reassignment stays in progress. Under the specs' own "
                "fairness (the leader's AlterPartition weakly fair) EventuallyReassignmentCompletes holds."
            ),
        ),
    ]


def reassignment_scenarios() -> list[Scenario]:
    """KIP-455's reassignment as the specs have it: the partition moved off its leader, and every
    invariant kept across a reassignment with a fencing."""
    return [
        Scenario(
            id="KR-reassignment",
            title="KRaft reassignment: the partition moves off its leader and keeps its committed record",
            model="classic",
            options={"generation": "kraft-kip966", **REASSIGNMENT},
            properties=("NoLeaderMovedOffRemovedReplica",),
            expect="violated",
            trace_length=12,
            story=(
                "Leader 1 writes A; follower 2 fetches it and the leader commits it. An operator reassigns "
                "the partition from {1,2} to {2,3}: the controller records replicas {1,2,3}, adding {3}, "
                "removing {1}. Broker 3 applies the record, becomes a follower and catches up. Leader 1 "
                "proposes ISR {1,2,3}; the controller accepts, and since every adding replica is now in "
                "the ISR the reassignment completes: replicas {2,3}, ISR {2,3}, and, the leader being "
                "removed, a new leader 2 in leader epoch 2. Broker 2 leads with A: the committed record "
                "survived the move (the witness LeaderMovedOffRemovedReplica, reached in 12 states in both "
                "generations)."
            ),
        ),
        Scenario(
            id="KR-racks-naive",
            title="KRaft reassignment without rack awareness puts both replicas in one rack",
            model="classic",
            options={"generation": "kraft-kip966", **REASSIGNMENT, "azs": 2, "placement": "naive"},
            properties=("ReplicasSpreadOverRacks",),
            expect="violated",
            trace_length=2,
            story=(
                "Brokers 1 and 3 are in rack 1, broker 2 in rack 2; the partition starts on {1,2}, one "
                "replica per rack. A rack-unaware reassignment may move it to {1,3} (add 3, remove 2): "
                "the controller accepts any target the spec's ValidReassignment allows, so from then on "
                "one rack holds every replica. Kafka's rack-aware assignment (the targets "
                "kafka-reassign-partitions proposes) never chooses it: KR-racks."
            ),
        ),
        Scenario(
            id="KR-racks",
            title="KRaft reassignment with rack-aware targets keeps the replicas spread over the racks",
            model="classic",
            options={"generation": "kraft-kip966", **REASSIGNMENT, "azs": 2},
            properties=("ReplicasSpreadOverRacks",),
            expect="holds",
            story=(
                "The same cluster with rack-aware targets: a reassignment may add broker 3 or replace a "
                "replica only so that the target spans both racks, so {1,3} is never chosen, while "
                "{2,3} (broker 1 replaced by 3) still is."
            ),
        ),
        Scenario(
            id="KR-reassignment-safe",
            title="KRaft reassignment with a fencing: no committed record lost, the replica set never too small",
            model="classic",
            options={"generation": "kraft-3.5", **REASSIGNMENT, "max_fencings": 1},
            properties=("LeaderCompleteness", "LeaderCandidateCompleteness", "NoCommittedRecordLostGlobally",
                        "ReplicaSetAtLeastMinIsr", "PartitionWithinReplicas"),
            expect="holds",
            story=(
                "Kafka 3.5 with one reassignment of any shape (adding the spare broker, removing a replica, "
                "or both) and one fencing: the leader removed by a completed reassignment hands over to an "
                "ISR member with every committed record, the removed replica's log goes with it, and the "
                "target replica set never has fewer than min.insync.replicas members (59,858 states)."
            ),
        ),
    ]


def _named() -> list[Scenario]:
    return [
        Scenario(
            id="K7",
            title="KRaft leader counts only its ISR for the high watermark while an expansion is in flight",
            model="classic",
            options={"generation": "kraft-3.5", **NO_SHUTDOWN, "hw_over_maximal_isr": False},
            properties=("LeaderCandidateCompleteness",),
            expect="violated",
            trace_length=8,
            story=(
                "Follower 2 fetches once, then misses heartbeats: the controller fences it and shrinks the "
                "ISR to {1}. Leader 1 learns it, and since 2 had fetched in this epoch at the high "
                "watermark, proposes ISR {1,2} with AlterPartition. While the request is in flight a "
                "producer writes A; the leader counts only its ISR {1} and commits A at once. 2 is "
                "unfenced and the controller accepts ISR {1,2}: an ISR member, electable, lacks a "
                "committed record. KIP-497's maximal ISR (ISR plus pending additions) closes it."
            ),
        ),
        Scenario(
            id="K7-fixed",
            title="KIP-497: the leader counts its maximal ISR while an AlterPartition is in flight",
            model="classic",
            options={"generation": "kraft-3.5", **NO_SHUTDOWN},
            properties=("LeaderCandidateCompleteness",),
            expect="holds",
            story=(
                "Same bounds as K7 with Kafka 3.5's leader, which counts the ISR plus the replicas it is "
                "adding for the high watermark until the controller answers: no running ISR member is ever "
                "shorter than the committed log."
            ),
        ),
        Scenario(
            id="K11",
            title="KRaft 3.5 'last replica standing': the lone leader's unflushed commit is lost and it is re-elected",
            model="classic",
            options={"generation": "kraft-3.5", **ANCHOR},
            properties=("LeaderCompleteness",),
            expect="violated",
            trace_length=8,
            story=(
                "Leader 1 writes A. The controller fences follower 2; the ISR shrinks to {1} (below min ISR "
                "2), and 3.5's leader, counting its maximal ISR {1}, advances the high watermark over A: "
                "committed with one copy. Broker 1 shuts down uncleanly and loses its log; the controller "
                "cannot shrink the ISR below one member, so {1} stays, leaderless. Broker 1 restarts, "
                "registers, is unfenced and elected again from its ISR of one: it leads with an empty log. "
                "TLC finds the same violation at depth 8."
            ),
        ),
        Scenario(
            id="K11-fixed",
            title="KIP-966 Eligible Leader Replicas: no committed record is lost at the same bounds",
            model="classic",
            options={"generation": "kraft-kip966", **ANCHOR},
            properties=("LeaderCompleteness", "LeaderCandidateCompleteness", "ReplicationQuorumSuperset",
                        "LogMatching", "MetadataLogMatching", "ConsistentRead", "NoCommittedRecordLostGlobally",
                        "MinIsrRecoveryQuorum"),
            expect="holds",
            story=(
                "Same bounds with KIP-966: fencing 2 moves it to the ELR and the HW stops while the ISR is "
                "below min ISR; broker 1 back from a lossy shutdown registers with broker epoch 0, so the "
                "controller takes it out of the ISR and the ELR before it can be elected. Every invariant "
                "of the spec holds over the whole state space (973,728 states, depth 33)."
            ),
        ),
        Scenario(
            id="KR-lost-registration",
            title="KRaft: a registration request outlives its broker; the broker's next registration is refused",
            model="classic",
            options={"generation": "kraft-kip966", **LOST_REGISTRATION},
            properties=("NoLostRegistration",),
            expect="violated",
            trace_length=6,
            story=(
                "Broker 1 shuts down, losing its log; broker 2 leads. Broker 1 starts and sends "
                "RegisterBroker, then shuts down again before the controller answers: the request stays "
                "in the network. Broker 1 starts again with a new incarnation and a new request. The "
                "controller now processes the first request: broker 1's registration is FENCED, so it is "
                "accepted (it sent broker epoch 0, so KIP-966 also takes broker 1 out of the ELR), and the "
                "controller holds broker 1 UNFENCED at broker epoch 3 for an incarnation "
                "that no longer exists (its response is never received). Broker 1's current request is "
                "refused until the controller fences it again. TLC reaches the same state at depth 6 "
                "with the same actions (docs/kraft.md)."
            ),
        ),
        Scenario(
            id="KAFKA-19996",
            title="KIP-966 leader under min ISR adds a follower at the frozen high watermark, behind its log end",
            model="classic",
            options={"generation": "kraft-kip966", **NO_SHUTDOWN},
            properties=("NoPrematureIsrExpansion",),
            expect="violated",
            trace_length=6,
            story=(
                "Leader 1 writes A; follower 2 fetches from offset 0, so the leader knows it at offset 0 "
                "(that it got A shows only at its next fetch). The controller fences 2: the ISR shrinks to "
                "{1}, below min ISR 2, so KIP-966 freezes the high watermark at 0. The leader learns it "
                "and, since 2 has reached the high watermark and the start of its epoch, proposes ISR "
                "{1,2} with 2 known only behind its log end. A follower that stays slow is added at the stale "
                "high watermark, times out, and is added again: it flaps in and out of the ISR "
                "(KAFKA-19996). Safety is not at stake: the HW still waits for 2."
            ),
        ),
        Scenario(
            id="KAFKA-19996-fixed",
            title="Under min ISR, a follower joins the ISR only once it has reached the leader's log end",
            model="classic",
            options={"generation": "kraft-kip966", **NO_SHUTDOWN, "expand_at_leo_under_min_isr": True},
            properties=("NoPrematureIsrExpansion",),
            expect="holds",
            story=(
                "The same bounds with the fix proposed for KAFKA-19996: while the ISR is below min ISR the "
                "leader requires a follower to have reached its log end offset, not the frozen high "
                "watermark. No premature expansion in 9,845 states."
            ),
        ),
        Scenario(
            id="KAFKA-15495",
            title="KRaft 3.5: the partition is truncated when its only ISR member restarts with an empty disk",
            model="classic",
            options={"generation": "kraft-3.5", **ANCHOR},
            properties=("NoCommittedRecordLostGlobally",),
            expect="violated",
            trace_length=12,
            story=(
                "Leader 1 writes A. The controller fences broker 1 and elects 2 (ISR {2}); broker 1 does "
                "not know it yet and still leads in epoch 1, so 2's fetches reach it: 2 gets A, the HW "
                "passes it and the producer is acknowledged. Broker 2, the only ISR member, shuts down "
                "and comes back with an empty disk; 3.5 keeps it in the ISR (last replica standing) and "
                "elects it again. Broker 1 follows it and truncates A: an acknowledged record is on no "
                "broker (KAFKA-15495). KIP-966 closes it: at these bounds kraft-kip966 keeps "
                "NoCommittedRecordLostGlobally over all 973,728 states (K11-fixed)."
            ),
        ),
        Scenario(
            id="KR-never-runs",
            title="KRaft liveness: after a lost registration, a starting broker never runs (the specs' EventuallyRuns)",
            model="classic",
            options={"generation": "kraft-kip966", **LOST_REGISTRATION},
            properties=("EventuallyRuns",),
            expect="violated",
            trace_length=7,
            story=(
                "The lost registration (KR-lost-registration), then the lasso: broker 1 is STARTING, its "
                "request refused because the controller holds it UNFENCED for a dead incarnation, and "
                "only FenceBroker would release it, which the specs count as a perturbation, not a fair "
                "step (a real controller fences a broker whose heartbeats stop). Under the specs' "
                "fairness broker 1 never runs: their EventuallyRuns fails once two shutdowns are allowed."
            ),
        ),
    ]
