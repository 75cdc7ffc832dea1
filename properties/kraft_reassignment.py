"""Properties of partition reassignment in the KRaft family (KIP-455, the specs'
``PerformPartitionReassignment``), present when ``--max-reassignments`` is at least 1.

What a reassignment must keep (invariants, checked by default): the replica set it leaves is never
below what the spec's ``ValidReassignment`` requires (``ReplicaSetAtLeastMinIsr``: the target,
replicas minus removing, has at least min.insync.replicas members), and the controller's partition
state stays inside it (``PartitionWithinReplicas``: ISR, ELR and leader are replicas; adding and
removing are replicas, disjoint). That no committed record is lost across a reassignment is what
the family's own invariants say (LeaderCompleteness, LeaderCandidateCompleteness,
NoCommittedRecordLostGlobally, in ``isrcheck.properties.kraft``); with reassignment they also cover
the replica removed with its log and the leader moved off a removed replica.

``sometimes`` companions: ``ReassignmentCompleted`` (a reassignment ran and none is in progress)
and, with spare brokers, ``AddedReplicaInIsr`` (a broker that did not host the partition at the
start is in the ISR), and ``LeaderMovedOffRemovedReplica`` (a partition change removed its leader
from the replica set and named another, which now leads with every committed record;
``NoLeaderMovedOffRemovedReplica``, opt-in, is its negation as an invariant, whose counterexample
is the shortest such path, as TLC checks a witness). With racks (``--azs``):
``ReplicasSpreadOverRacks``, the target replica set spans as many racks as it can (min(its size,
racks)): Kafka's rack-aware rule, which ``--placement naive`` reassignments break.
Liveness (opt-in, under the specs' fairness): ``EventuallyReassignmentCompletes``, the specs'
property of that name (a reassignment in progress leads to none in progress).

Like the rest of ``properties/``, this module never imports ``model``: it reads the model's tables.
"""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.contract import Property

ALWAYS = ("ReplicaSetAtLeastMinIsr", "PartitionWithinReplicas", "ReplicasSpreadOverRacks")
SOMETIMES = ("ReassignmentCompleted", "AddedReplicaInIsr", "LeaderMovedOffRemovedReplica")
OPT_IN = ("NoLeaderMovedOffRemovedReplica",)
LIVENESS = ("EventuallyReassignmentCompletes",)


def names(t: Any) -> tuple[str, ...]:
    """The reassignment properties: only where a reassignment can happen."""
    c = t.config
    if not c.reassignments:
        return ()
    always = ALWAYS if c.racks else tuple(n for n in ALWAYS if n != "ReplicasSpreadOverRacks")
    sometimes = SOMETIMES if c.spare_brokers else tuple(n for n in SOMETIMES if n != "AddedReplicaInIsr")
    return (*always, *sometimes, *OPT_IN, *LIVENESS)


def builders(t: Any) -> dict[str, Any]:
    lay, c, f = t.layout, t.config, t.fields
    g, size = lay.g, lay.size
    METADATA_LOG, NIL, REASSIGNMENTS, TRUE_HW = f.METADATA_LOG, f.NIL, f.REASSIGNMENTS, f.TRUE_HW
    LEADER, LOG, MD_LEADER_EPOCH = f.LEADER, f.LOG, f.MD_LEADER_EPOCH
    ROLE, RUNNING, STATUS = f.ROLE, f.RUNNING, f.STATUS
    R_LEADER_EPOCH = f.R_LEADER_EPOCH
    R_ISR, R_ELR, R_LEADER, R_REPLICAS, R_ADDING, R_REMOVING = (f.R_ISR, f.R_ELR, f.R_LEADER, f.R_REPLICAS,
                                                                 f.R_ADDING, f.R_REMOVING)

    def current(s):
        return s[g + METADATA_LOG][-1]

    def target_size(s):
        cur = current(s)
        return size[cur[R_REPLICAS] & ~cur[R_REMOVING]]

    def within(s):
        cur = current(s)
        replicas = cur[R_REPLICAS]
        inside = cur[R_ISR] | cur[R_ELR] | cur[R_ADDING] | cur[R_REMOVING]
        leader_ok = cur[R_LEADER] == NIL or replicas >> cur[R_LEADER] & 1
        return not inside & ~replicas and leader_ok and not cur[R_ADDING] & cur[R_REMOVING]

    def describe_within(s):
        cur = current(s)
        ids = lay.ids
        return (f"replicas {ids(cur[R_REPLICAS])}, ISR {ids(cur[R_ISR])}, ELR {ids(cur[R_ELR])}, leader "
                f"{None if cur[R_LEADER] == NIL else cur[R_LEADER] + 1}, adding {ids(cur[R_ADDING])}, "
                f"removing {ids(cur[R_REMOVING])}")

    def racks_of(s):
        cur = current(s)
        target = lay.members[cur[R_REPLICAS] & ~cur[R_REMOVING]]
        return target, {b % max(c.racks, 1) for b in target}

    def spread(s):
        target, racks = racks_of(s)
        return len(racks) == min(len(target), c.racks)

    def describe_spread(s):
        target, racks = racks_of(s)
        return (f"target replicas {[b + 1 for b in target]} span {len(racks)} of {c.racks} racks "
                f"(broker b in rack (b - 1) mod {c.racks})")

    def in_progress(s):
        cur = current(s)
        return bool(cur[R_ADDING] or cur[R_REMOVING])

    # Both witnesses read the history from the metadata log, never a broker's id, so that they are
    # the same on every relabelling of a state (--symmetry).
    def leader_moved(s):
        log = s[g + METADATA_LOG]
        cur = log[-1]
        leader = cur[R_LEADER]
        if leader == NIL or not any(a[R_LEADER] != NIL and not b[R_REPLICAS] >> a[R_LEADER] & 1 and b[R_LEADER] != NIL
                                    for a, b in zip(log, log[1:], strict=False)):
            return False
        o = lay.base[leader]
        return (s[o + STATUS] == RUNNING and s[o + ROLE] == LEADER and s[o + MD_LEADER_EPOCH] == cur[R_LEADER_EPOCH]
                and 0 < s[g + TRUE_HW] <= len(s[o + LOG]))

    def added_in_isr(s):
        log = s[g + METADATA_LOG]
        return bool(log[-1][R_ISR] & ~log[0][R_REPLICAS])

    return {
        "ReplicasSpreadOverRacks": lambda: Property.always(
            "ReplicasSpreadOverRacks", spread,
            "the target replica set spans min(its size, racks) racks (Kafka's rack-aware rule)", describe_spread),
        "LeaderMovedOffRemovedReplica": lambda: Property.sometimes(
            "LeaderMovedOffRemovedReplica", leader_moved,
            "a reassignment removed the leader; another leads with every committed record"),
        "NoLeaderMovedOffRemovedReplica": lambda: Property.always(
            "NoLeaderMovedOffRemovedReplica", lambda s: not leader_moved(s),
            "LeaderMovedOffRemovedReplica as an invariant (its counterexample is the shortest path there)",
            default=False),
        "ReplicaSetAtLeastMinIsr": lambda: Property.always(
            "ReplicaSetAtLeastMinIsr", lambda s: target_size(s) >= c.min_isr,
            "a reassignment's target replica set has at least min.insync.replicas members",
            lambda s: f"the target replica set has {target_size(s)} member(s), min ISR {c.min_isr}"),
        "PartitionWithinReplicas": lambda: Property.always(
            "PartitionWithinReplicas", within,
            "the controller's ISR, ELR, leader, adding and removing are replicas", describe_within),
        "ReassignmentCompleted": lambda: Property.sometimes(
            "ReassignmentCompleted", lambda s: s[g + REASSIGNMENTS] > 0 and not in_progress(s),
            "a reassignment ran to completion"),
        "AddedReplicaInIsr": lambda: Property.sometimes(
            "AddedReplicaInIsr", added_in_isr,
            "a broker a reassignment added is in the ISR"),
        "EventuallyReassignmentCompletes": lambda: Property.leads_to(
            "EventuallyReassignmentCompletes", in_progress, lambda s: not in_progress(s),
            "a reassignment in progress eventually completes (the specs' EventuallyReassignmentCompletes)",
            default=False),
    }
