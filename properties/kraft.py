"""The properties of the KRaft-era generations (``isrcheck.model.kraft``), in Kafka's terms.

Invariants of ``v3_5_properties.tla`` / ``kip_966_properties.tla`` (the spec's names without
"Property"), each with the values that fail it:

- LeaderCompleteness: the controller's leader, once running, has every record below the true high
  watermark (the highest HW any leader reached) and every positively acknowledged value.
- LeaderCandidateCompleteness: no running member of the controller's ISR (KIP-966: ISR or ELR) is
  missing a record below the true high watermark: whoever may be elected next is complete.
- ReplicationQuorumSuperset: a leader at the current leader epoch counts a superset of the
  controller's ISR for its HW (its maximal ISR; KIP-966: of ISR and ELR, while its ISR has at least
  min.insync.replicas members) and, with no AlterPartition pending, its maximal ISR is its ISR.
- LogMatching: two replicas agree on every value below both their high watermarks.
- MetadataLogMatching: every broker's metadata log is a prefix of the controller's (by
  construction here: a broker's copy is stored as a prefix length, so this checks the length).
- ConsistentRead: a leader at the current leader epoch still holds, unchanged, every record
  consumers read (below the true HW).
- NoCommittedRecordLostGlobally: every positively acknowledged value is on some broker.
- MinIsrRecoveryQuorum (KIP-966): with ISR and ELR both empty, the last known ELR has exactly
  min.insync.replicas members (the quorum unclean recovery would read).

Opt-in (``--invariant NAME``), the specs' checks of their own encoding, kept here to check ours:
ValidControllerState (3.5: the ISR is never empty and a fenced broker is in it only as its last
member; KIP-966: no fenced broker in the ISR, ISR and ELR disjoint, the ELR empty while the ISR has
min.insync.replicas members) and ValidReplicaState (a replica that acts as leader names itself
leader in its metadata). NoLostRegistration is LostRegistration's negation as an invariant, as TLC
checks a witness: its counterexample is a shortest path to the lost registration.
Liveness, opt-in (``--property NAME``), the specs' leads-to properties under the specs' fairness
(``isrcheck.model.kraft.fairness``): EventuallyRuns (a STARTING broker eventually runs, UNFENCED;
checked as "some broker STARTING leads to every broker RUNNING and UNFENCED", which is the specs'
per-broker form when perturbations are bounded, since BrokerStart and UnfenceBroker are fair),
EventuallyUnfenced (a fenced broker is eventually unfenced) and EventuallyWriteIsAcceptedOrRejected
(every value written is eventually acknowledged, positively or negatively). The rest of the specs'
liveness is in ``isrcheck.properties.kraft_liveness`` and, for reassignment,
``isrcheck.properties.kraft_reassignment``; this module lists their names with its own.

NoPrematureIsrExpansion (a transition property, KAFKA-19996): a leader whose ISR is below
min.insync.replicas proposes to add only followers that have reached its log end offset (the
specs' rule adds a follower at the frozen high watermark, behind the log end, which then falls out
of the ISR again: the flapping the bug reports).

``sometimes`` companions (a complete run that never reaches one proves nothing about the others):
RecordCommitted, RecordAcknowledged, NewLeaderElected, BrokerBackFromUncleanShutdown, with ELR
ElrNonEmpty, and with two shutdowns or more LostRegistration (a broker starts and its registration is
refused, because the controller already holds it UNFENCED from the registration request of an
earlier incarnation, processed after that incarnation shut down: the spec's lost registration).

Like the rest of ``properties/``, this module never imports ``model``: everything it reads comes
through the model's tables (``config``, ``layout``, ``fields``: the field offsets of
``isrcheck.model.kraft.fields``).
"""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.contract import Property

from . import kraft_liveness as liveness
from . import kraft_reassignment as reassignment

ALWAYS = ("LeaderCompleteness", "LeaderCandidateCompleteness", "ReplicationQuorumSuperset", "LogMatching",
          "MetadataLogMatching", "ConsistentRead", "NoCommittedRecordLostGlobally", "MinIsrRecoveryQuorum")
SOMETIMES = ("RecordCommitted", "RecordAcknowledged", "NewLeaderElected", "BrokerBackFromUncleanShutdown",
             "ElrNonEmpty", "LostRegistration")
OPT_IN = ("ValidControllerState", "ValidReplicaState", "NoLostRegistration", "NoPrematureIsrExpansion")
# The specs' liveness properties (opt-in, checked under KraftModel.fairness()).
LIVENESS = ("EventuallyRuns", "EventuallyUnfenced", "EventuallyWriteIsAcceptedOrRejected")
ELR_ONLY = ("MinIsrRecoveryQuorum", "ElrNonEmpty")
NEEDS_LOSSY_SHUTDOWN = ("BrokerBackFromUncleanShutdown",)
# A registration outlives its incarnation only if the broker shuts down, starts, and shuts down again.
NEEDS_TWO_SHUTDOWNS = ("LostRegistration", "NoLostRegistration")


def names(t: Any) -> tuple[str, ...]:
    """The properties this configuration has: ELR ones only with ELR; the unclean-shutdown witness
    only when lossy shutdowns are allowed (else it could never be reached)."""
    c = t.config
    out = []
    for name in (*ALWAYS, *reassignment.names(t), *SOMETIMES, *OPT_IN, *LIVENESS, *liveness.names(t)):
        if name in reassignment.names(t) + liveness.names(t):
            out.append(name)
            continue
        if name in ELR_ONLY and not c.gen.elr:
            continue
        if name in NEEDS_LOSSY_SHUTDOWN and not c.lossy_shutdowns:
            continue
        if name in NEEDS_TWO_SHUTDOWNS and c.lossy_shutdowns + c.clean_shutdowns < 2:
            continue
        out.append(name)
    return tuple(out)


def build(t: Any, invariants: str = "all") -> list[Property]:
    """The selected properties: 'all', 'default' (the same here) or comma-separated names."""
    available = names(t)
    if invariants in ("all", "default"):
        chosen = available
    else:
        chosen = tuple(n.strip() for n in invariants.split(",") if n.strip())
        unknown = [n for n in chosen if n not in available]
        if unknown:
            raise ValueError(f"property_set: unknown for {t.config.generation}: {', '.join(unknown)}; "
                             f"choose from {', '.join(available)}")
    builders = {**_builders(t), **reassignment.builders(t), **liveness.builders(t)}
    return [builders[n]() for n in chosen]


def _builders(t: Any) -> dict[str, Any]:
    lay, c, f = t.layout, t.config, t.fields
    ACKED, ALTER_PARTITION, CONSUMED, HW, LEADER, LOG = f.ACKED, f.ALTER_PARTITION, f.CONSUMED, f.HW, f.LEADER, f.LOG
    MD_ISR, MD_LEADER_EPOCH, MD_MAXIMAL_ISR, MD_OFFSET = f.MD_ISR, f.MD_LEADER_EPOCH, f.MD_MAXIMAL_ISR, f.MD_OFFSET
    METADATA_LOG, NIL, R_ELR, R_ISR, R_LAST_KNOWN_ELR = f.METADATA_LOG, f.NIL, f.R_ELR, f.R_ISR, f.R_LAST_KNOWN_ELR
    R_LEADER, R_LEADER_EPOCH, ROLE, RUNNING, STATUS = f.R_LEADER, f.R_LEADER_EPOCH, f.ROLE, f.RUNNING, f.STATUS
    TRUE_HW, UNCLEAN_SHUTDOWNS, C_UNFENCED, MD_LEADER = f.TRUE_HW, f.UNCLEAN_SHUTDOWNS, f.C_UNFENCED, f.MD_LEADER
    SENT, NACKED = f.SENT, f.NACKED
    g, base, brokers, members, size = lay.g, lay.base, lay.brokers, lay.members, lay.size
    nv = c.values
    elr = c.gen.elr

    def current(s):
        return s[g + METADATA_LOG][-1]

    STARTING = f.STARTING
    FOLLOWERS = f.FOLLOWERS
    min_isr = c.min_isr

    def premature_expansion(s, a) -> str:
        """Why a SendAlterPartitionRequest adds a follower behind the leader's log end while the
        leader's ISR is below min ISR; '' when it does not."""
        if type(a).__name__ != "SendAlterPartitionRequest":
            return ""
        o = base[a.leader - 1]
        isr = s[o + MD_ISR]
        if size[isr] >= min_isr:
            return ""
        leo = len(s[o + LOG])
        behind = [f + 1 for f in brokers if f + 1 in a.isr and not isr >> f & 1 and s[o + FOLLOWERS][f][0] < leo]
        if not behind:
            return ""
        return (f"leader {a.leader} (ISR {lay.ids(isr)} below min ISR {min_isr}) adds {behind} at the high "
                f"watermark {s[o + HW]}, behind its log end {leo}")

    def lost_registration(s):
        return any(s[base[b] + STATUS] == STARTING and s[base[b] + C_UNFENCED] for b in brokers)

    def leader_completeness(s):
        true_hw = s[g + TRUE_HW]
        if not true_hw:
            return True
        leader = current(s)[R_LEADER]
        if leader == NIL or s[base[leader] + STATUS] != RUNNING:
            return True
        log = s[base[leader] + LOG]
        if len(log) < true_hw:
            return False
        values = {r % nv for r in log}
        return all(v in values for v in range(nv) if s[g + ACKED] >> v & 1)

    def describe_leader(s):
        leader = current(s)[R_LEADER]
        return (f"leader {leader + 1} (running) has {len(s[base[leader] + LOG])} record(s), "
                f"the true high watermark is {s[g + TRUE_HW]}")

    def candidates(s):
        cur = current(s)
        return cur[R_ISR] | (cur[R_ELR] if elr else 0)

    def candidate_completeness(s):
        true_hw = s[g + TRUE_HW]
        return not true_hw or all(len(s[base[b] + LOG]) >= true_hw or s[base[b] + STATUS] != RUNNING
                                  for b in members[candidates(s)])

    def describe_candidates(s):
        short = [b + 1 for b in members[candidates(s)]
                 if len(s[base[b] + LOG]) < s[g + TRUE_HW] and s[base[b] + STATUS] == RUNNING]
        return f"{'ISR/ELR' if elr else 'ISR'} member(s) {short} run with fewer than {s[g + TRUE_HW]} record(s)"

    def non_stale_leaders(s):
        le = current(s)[R_LEADER_EPOCH]
        return [b for b in brokers if s[base[b] + ROLE] == LEADER and s[base[b] + MD_LEADER_EPOCH] == le]

    def quorum_superset(s):
        cur = current(s)
        for b in non_stale_leaders(s):
            o = base[b]
            if not s[o + ALTER_PARTITION] and s[o + MD_MAXIMAL_ISR] != s[o + MD_ISR]:
                return False
            if elr:
                if size[s[o + MD_ISR]] >= c.min_isr and (cur[R_ISR] | cur[R_ELR]) & ~s[o + MD_MAXIMAL_ISR]:
                    return False
            elif cur[R_ISR] & ~s[o + MD_MAXIMAL_ISR]:
                return False
        return True

    def log_matching(s):
        # Only replicas with a positive HW can disagree below it.
        committed = [(s[o + LOG], s[o + HW]) for o in base if s[o + HW]]
        for i, (a, hw_a) in enumerate(committed):
            for b, hw_b in committed[i + 1:]:
                if any(a[off] % nv != b[off] % nv for off in range(min(len(a), len(b), hw_a, hw_b))):
                    return False
        return True

    def metadata_log_matching(s):
        return all(s[base[b] + MD_OFFSET] <= len(s[g + METADATA_LOG]) for b in brokers)

    def consistent_read(s):
        consumed = s[g + CONSUMED]
        return not consumed or all(s[base[b] + LOG][:len(consumed)] == consumed for b in non_stale_leaders(s))

    def no_committed_record_lost(s):
        acked = s[g + ACKED]
        if not acked:
            return True
        held = {r % nv for b in brokers for r in s[base[b] + LOG]}
        return all(v in held for v in range(nv) if acked >> v & 1)

    def min_isr_recovery_quorum(s):
        cur = current(s)
        return cur[R_ISR] or cur[R_ELR] or size[cur[R_LAST_KNOWN_ELR]] == c.min_isr

    def valid_controller_state(s):
        cur = current(s)
        isr, elr_set = cur[R_ISR], cur[R_ELR]
        fenced_in_isr = any(not s[base[b] + C_UNFENCED] for b in members[isr])
        if elr:
            return not fenced_in_isr and not isr & elr_set and (size[isr] < c.min_isr or not elr_set)
        return isr != 0 and (size[isr] == 1 or not fenced_in_isr)

    def valid_replica_state(s):
        return all(s[o + ROLE] != LEADER or s[o + MD_LEADER] == b for b, o in enumerate(base))

    def every_broker_back(s):
        return s[g + UNCLEAN_SHUTDOWNS] > 0 and all(s[base[b] + STATUS] == RUNNING for b in brokers)

    return {
        "LeaderCompleteness": lambda: Property.always(
            "LeaderCompleteness", leader_completeness, "a running leader has every committed and acked record",
            describe_leader),
        "LeaderCandidateCompleteness": lambda: Property.always(
            "LeaderCandidateCompleteness", candidate_completeness,
            "every running ISR (KIP-966: and ELR) member has every committed record", describe_candidates),
        "ReplicationQuorumSuperset": lambda: Property.always(
            "ReplicationQuorumSuperset", quorum_superset,
            "a current leader counts a superset of the controller's ISR (KIP-497's maximal ISR)"),
        "LogMatching": lambda: Property.always(
            "LogMatching", log_matching, "replicas agree below both high watermarks"),
        "MetadataLogMatching": lambda: Property.always(
            "MetadataLogMatching", metadata_log_matching, "each broker's metadata log is a prefix of the controller's"),
        "ConsistentRead": lambda: Property.always(
            "ConsistentRead", consistent_read, "a current leader still holds every record consumers read"),
        "NoCommittedRecordLostGlobally": lambda: Property.always(
            "NoCommittedRecordLostGlobally", no_committed_record_lost, "every acked value is on some broker"),
        "MinIsrRecoveryQuorum": lambda: Property.always(
            "MinIsrRecoveryQuorum", min_isr_recovery_quorum,
            "with ISR and ELR empty, the last known ELR has min.insync.replicas members"),
        "ValidControllerState": lambda: Property.always(
            "ValidControllerState", valid_controller_state,
            "the controller's ISR/ELR are well formed (the spec's own check)", default=False),
        "ValidReplicaState": lambda: Property.always(
            "ValidReplicaState", valid_replica_state, "a leader replica names itself leader", default=False),
        "RecordCommitted": lambda: Property.sometimes(
            "RecordCommitted", lambda s: s[g + TRUE_HW] > 0, "some leader's HW passes a record"),
        "RecordAcknowledged": lambda: Property.sometimes(
            "RecordAcknowledged", lambda s: s[g + ACKED] != 0, "a producer gets a positive acknowledgement"),
        "NewLeaderElected": lambda: Property.sometimes(
            "NewLeaderElected", lambda s: current(s)[R_LEADER_EPOCH] > 1 and current(s)[R_LEADER] != NIL,
            "the controller elects a leader in a later epoch"),
        "BrokerBackFromUncleanShutdown": lambda: Property.sometimes(
            "BrokerBackFromUncleanShutdown", every_broker_back, "a lossy shutdown happened and every broker runs"),
        "NoLostRegistration": lambda: Property.always(
            "NoLostRegistration", lambda s: not lost_registration(s),
            "no starting broker's registration is refused (LostRegistration as an invariant)", default=False),
        "NoPrematureIsrExpansion": lambda: Property.transition(
            "NoPrematureIsrExpansion", lambda s, a, nxt: not premature_expansion(s, a),
            "under min ISR, an AlterPartition adds only followers at the leader's log end (KAFKA-19996)",
            lambda s, a, nxt: premature_expansion(s, a), default=False),
        "EventuallyRuns": lambda: Property.leads_to(
            "EventuallyRuns", lambda s: any(s[base[b] + STATUS] == STARTING for b in brokers),
            lambda s: all(s[base[b] + STATUS] == RUNNING and s[base[b] + C_UNFENCED] for b in brokers),
            "a STARTING broker eventually runs, UNFENCED (the specs' EventuallyRuns)", default=False),
        "EventuallyUnfenced": lambda: Property.leads_to(
            "EventuallyUnfenced", lambda s: not all(s[base[b] + C_UNFENCED] for b in brokers),
            lambda s: all(s[base[b] + C_UNFENCED] for b in brokers),
            "every fenced broker is eventually unfenced (the specs' EventuallyUnfenced)", default=False),
        "EventuallyWriteIsAcceptedOrRejected": lambda: Property.leads_to(
            "EventuallyWriteIsAcceptedOrRejected", lambda s: s[g + SENT] & ~(s[g + ACKED] | s[g + NACKED]),
            lambda s: not s[g + SENT] & ~(s[g + ACKED] | s[g + NACKED]),
            "every value written is eventually acknowledged or refused", default=False),
        "LostRegistration": lambda: Property.sometimes(
            "LostRegistration", lost_registration,
            "a starting broker's registration is refused: an earlier incarnation's request registered it"),
        "ElrNonEmpty": lambda: Property.sometimes(
            "ElrNonEmpty", lambda s: current(s)[R_ELR] != 0, "the controller keeps an Eligible Leader Replica"),
    }
