"""Lemmas toward the KRaft invariants other than LeaderCompleteness and the two log-matching ones
(LeaderCandidateCompleteness, ReplicationQuorumSuperset, ConsistentRead,
NoCommittedRecordLostGlobally, MinIsrRecoveryQuorum: ``properties.py``), for ``prove --bounded`` at
K11-fixed's bounds (docs/kraft.md, "The other invariants").

Each lemma was found from a counterexample to induction of one of those targets, with the proved
sets of ``lemmas.py`` and ``history_lemmas.py`` (94 lemmas) and their candidates assumed; all seven
are inductive with the 94 alone. What is modelled: the same symbolic state (``vars.KraftVars``, with
its history ``vars.History`` for four of them); what is abstracted away: nothing more. They are
claims about K11-fixed's bounds (``SeenLostBelowNewerStart`` leans on one record per log,
``RecoveryQuorumUnion`` on an initial ISR of min.insync.replicas members). Lemmas that read no
history were checked on every reachable state of K11-fixed by BFS and are tested on a small
configuration's reachable states and random walks; those over the history on the symbolic walks
(tests/model/test_kraft_target_lemmas.py).

The set at the end, ``targets``, is found by ``named_sets`` (``KraftSymbolic.lemma_sets``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from isrcheck.model.kraft.config import KraftConfig
from isrcheck.model.kraft.fields import LEADER, NIL, RUNNING

from .steps import Cur, at_least, exactly
from .vars import KraftVars, Sizes

Lemma = Callable[[Any, KraftVars], Any]


def target_lemmas(c: KraftConfig, z: Sizes) -> dict[str, Lemma]:
    R, L = range(c.brokers), z.log
    elr = c.gen.elr

    def recovery_quorum_union(o: Any, v: KraftVars) -> Any:
        """Why MinIsrRecoveryQuorum holds: a broker leaves the ISR for the ELR, and the ELR for the
        last known ELR, while the ISR is under min.insync.replicas; only an ISR of
        min.insync.replicas members or more clears the last known ELR. So an ISR under it has, with
        the ELR and the last known ELR, exactly min.insync.replicas brokers (no more: a broker
        elected from the ELR is counted in the ISR and the last known ELR, once in the union); an ISR
        of min.insync.replicas members or more has an empty last known ELR."""
        cur = Cur(o, v)
        union = [o.or_(cur.isr[j], cur.elr[j], cur.lk[j]) for j in R]
        return o.ite(at_least(o, cur.isr, c.min_isr), o.not_(o.or_(*cur.lk)), exactly(o, union, c.min_isr))

    def last_known_left_registered(o: Any, v: KraftVars) -> Any:
        """A broker leaves the ELR for good (in the last known ELR, not back in the ISR) only when the
        controller registers it again after a lossy shutdown (KIP-966's unclean registration): so a
        broker in the current record's last known ELR but in neither its ISR nor its ELR is held at
        a new broker epoch (its initial one is its id)."""
        cur = Cur(o, v)
        return o.and_(*(o.implies(o.and_(cur.lk[j], o.not_(cur.isr[j]), o.not_(cur.elr[j])), v.b[j].cbe != j + 1)
                        for j in R))

    def acked_committed(o: Any, v: KraftVars) -> Any:
        """A positive acknowledgement goes only up to the leader's new HW, which the true HW (the
        committed offset) then covers: every acknowledged value is among the committed records."""
        def committed(val: int) -> Any:
            return o.exists(0, v.true_hw, lambda off: o.sel(v.cval, off) == val, L)

        return o.and_(*(o.implies(v.acked[val], committed(val)) for val in range(c.values)))

    def members_read_commit_epoch(o: Any, v: KraftVars) -> Any:
        """(history) A commit at leader epoch ``h.hwe`` counted every member of its leader's ISR at a
        log end recorded in that epoch, so each had fetched at it (and read its record); a broker
        joins the ISR later only by an AlterPartition, after fetching at that record's epoch, or by
        an election from the members. So a running member of the controller's ISR or ELR has read
        the leader epoch of the last commit."""
        cur = Cur(o, v)
        member = [o.or_(cur.isr[f], cur.elr[f]) if elr else cur.isr[f] for f in R]
        return o.and_(*(o.implies(o.and_(v.b[f].status == RUNNING, member[f]), v.b[f].md_le >= v.h.hwe) for f in R))

    def loss_placed(o: Any, v: KraftVars) -> Any:
        """(history) A loss records where it happened (``h.lostk``, the metadata log's length then, at
        least 1) together with its leader epoch (``h.lost``), and a registration clears both: so a
        broker that lost records at a leader epoch lost them at or after its registration, and that
        epoch is no newer than the record current then."""
        parts = []
        for f in R:
            k = v.h.lostk[f]
            parts.append(o.implies(v.h.lost[f] > 0, o.and_(k >= 1, k >= v.h.reg[f],
                                                           v.h.lost[f] <= o.sel(v.m_le, k - 1))))
        return o.and_(*parts)

    def seen_lost_below_newer_start(o: Any, v: KraftVars) -> Any:
        """(history) SeenWithinUnlessLost (history_lemmas.py) with the loss placed: a leader's
        recorded log end of a running follower, in its current incarnation, is within the
        follower's log unless the follower lost records at a newer leader epoch whose leader began
        it below that log end. A follower truncates under the leader of its epoch only where their
        logs differ, and at these bounds (one record, at one leader epoch everywhere:
        OneEpochPerValue) a leader that began its epoch holding the recorded records has the
        follower's."""
        parts = []
        for b in R:
            x = v.b[b]
            for f in R:
                if f == b:
                    continue
                y, e = v.b[f], v.h.lost[f]
                seen = o.and_(x.role == LEADER, x.fleo[f] != NIL, x.fep[f] == y.cbe, y.status == RUNNING)
                excused = o.and_(e > x.md_le, o.sel(v.h.es, e) < x.fleo[f])
                parts.append(o.implies(seen, o.or_(x.fleo[f] <= y.llen, excused)))
        return o.and_(*parts)

    def registered_member_readded(o: Any, v: KraftVars) -> Any:
        """(history) A registration after a lossy shutdown takes the broker out of the ISR and the
        ELR (KIP-966's unclean registration, UncleanRegisteredOut), and only an AlterPartition
        brings it back, into the ISR: so a broker registered again (``h.reg``) that is in the
        controller's ISR or ELR was added to the ISR by a record since its registration."""
        cur = Cur(o, v)
        parts = []
        for f in R:
            member = o.or_(cur.isr[f], cur.elr[f]) if elr else cur.isr[f]
            added = o.exists(v.h.reg[f], v.mlen, lambda k, f=f: o.and_(
                k >= 1, o.sel(v.m_isr[f], k), o.not_(o.sel(v.m_isr[f], k - 1))), z.records)
            parts.append(o.implies(o.and_(v.h.reg[f] > 0, member), added))
        return o.and_(*parts)

    lemmas: dict[str, Lemma] = {"AckedCommitted": acked_committed}
    if z.epochs is not None:  # the history exists in the bounded encoding only (vars.History)
        lemmas["MembersReadCommitEpoch"] = members_read_commit_epoch
        lemmas["RegisteredMemberReadded"] = registered_member_readded
        lemmas["LossPlaced"] = loss_placed
        lemmas["SeenLostBelowNewerStart"] = seen_lost_below_newer_start
    if elr:
        lemmas["RecoveryQuorumUnion"] = recovery_quorum_union
        lemmas["LastKnownLeftRegistered"] = last_known_left_registered
    for name, fn in lemmas.items():
        fn.__doc__ = TARGET_MEANING[name]
    return lemmas


TARGET_MEANING = {
    "RecoveryQuorumUnion": "the current metadata record, if its ISR is under min.insync.replicas, has exactly that "
                           "many brokers in its ISR, ELR and last known ELR together; if not, an empty last known ELR "
                           "(KIP-966)",
    "LastKnownLeftRegistered": "a broker in the current record's last known ELR but in neither its ISR nor its ELR "
                               "has registered again (the controller holds a new broker epoch for it; KIP-966)",
    "MembersReadCommitEpoch": "(history) a running member of the controller's ISR or ELR has read the leader epoch at "
                              "which the committed offset last grew",
    "RegisteredMemberReadded": "(history) a broker registered again that is in the controller's ISR or ELR was added "
                               "to the ISR by a metadata record since its registration",
    "LossPlaced": "(history) a broker that lost records at a leader epoch (h.lost) has the place of the loss "
                  "recorded (h.lostk: at least 1, not before its registration, a record of that leader epoch or "
                  "newer before it)",
    "SeenLostBelowNewerStart": "(history) a leader's recorded log end of a running follower (current incarnation) is "
                               "within its log unless it lost records at a newer leader epoch begun below that log end",
    "AckedCommitted": "every positively acknowledged value is a committed record (below the true HW)",
}

# The lemmas here that read no history (offered in the unbounded encoding too).
TARGET_NO_HISTORY = ("RecoveryQuorumUnion", "LastKnownLeftRegistered", "AckedCommitted")
# Inductive with the 94 lemmas of the proved sets at K11-fixed's bounds, 101 in all (docs/kraft.md, "The other
# invariants"): the first three read no history and hold in every reachable state there (BFS); the others read the
# history (vars.History) and hold on the symbolic walks.
TARGETS_LEMMAS = (
    "RecoveryQuorumUnion", "LastKnownLeftRegistered", "AckedCommitted", "MembersReadCommitEpoch",
    "RegisteredMemberReadded", "LossPlaced", "SeenLostBelowNewerStart",
)
