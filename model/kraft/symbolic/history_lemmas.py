"""Candidate lemmas over the KRaft symbolic state's history (``vars.History``: which broker began
each leader epoch at which log end, where each broker last lost records and last registered), for
``prove`` toward LeaderCompleteness (docs/kraft.md, "History kept in the symbolic state").

The explicit model keeps no history, so these cannot be checked on BFS's reachable states: they
rest on induction (``prove --bounded`` proves them inductive with the family's other sets) and are
checked on random walks of the symbolic relation itself (tests/model/test_kraft_symbolic.py).
``OwnEpochAddsByRequest`` reads no history and is checked on reachable states like the others.

The history exists in the bounded encoding only (``vars.History``), so the lemmas that read it are
offered there only (``prove --bounded``); a range over leader epochs is the whole array (a slot the
metadata log has not reached yet is held to "not begun" too, so growing the log meets no stale
slot).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from isrcheck.model.kraft.config import KraftConfig
from isrcheck.model.kraft.fields import AP_ACCEPTED, LEADER, NIL, RUNNING, STARTING_REGISTERED

from .. import functions, rules
from .history_lemmas_3 import HISTORY_3_MEANING, history_3_lemmas
from .steps import Cur
from .vars import KraftVars, Sizes

Lemma = Callable[[Any, KraftVars], Any]


def history_lemmas(c: KraftConfig, z: Sizes) -> dict[str, Lemma]:
    R = range(c.brokers)

    def epochs(o: Any, v: KraftVars, lo: Any, body: Callable[[Any], Any]) -> Any:
        """``body(e)`` for every leader epoch ``e`` from ``lo`` on (see the module docstring)."""
        return o.forall(lo, z.epochs, body, z.epochs)

    def began(o: Any, v: KraftVars, e: Any) -> Any:
        return o.sel(v.h.es, e) != NIL

    def epoch_start_kept(o: Any, v: KraftVars) -> Any:
        parts = []
        for b in R:
            x = v.b[b]
            parts.append(o.implies(x.role == LEADER, o.and_(
                o.sel(v.h.es, x.md_le) == x.eps, o.sel(v.h.esb, x.md_le) == x.bepoch, o.sel(v.h.esl, x.md_le) == b)))
        return o.and_(*parts)

    def epochs_begun_issued(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        h = v.h
        def incarnation(e: Any) -> Any:  # its leader's initial broker epoch or its current one
            return o.or_(*(o.and_(o.sel(h.esl, e) == b, o.sel(h.esb, e) <= v.b[b].cbe, o.or_(
                o.sel(h.esb, e) == b + 1, o.sel(h.esb, e) == v.b[b].cbe)) for b in R))

        return o.and_(began(o, v, 1), epochs(o, v, 0, lambda e: o.and_(
            o.implies(o.or_(e == 0, e > cur.le), o.and_(o.sel(h.es, e) == NIL, o.sel(h.esb, e) == 0,
                                                       o.sel(h.esl, e) == NIL)),
            began(o, v, e) == (o.sel(h.esl, e) != NIL), began(o, v, e) == (o.sel(h.esb, e) >= 1),
            o.implies(began(o, v, e), o.and_(incarnation(e), 0 <= o.sel(h.esx, e), o.sel(h.esx, e) < e)))))

    def begun_by_named(o: Any, v: KraftVars) -> Any:
        h = v.h
        def before_registering(e: Any, k: Any) -> Any:  # begun in an earlier incarnation: named before registering
            return o.and_(*(o.implies(o.and_(o.sel(h.esl, e) == f, o.sel(h.esb, e) != v.b[f].cbe), k < h.reg[f])
                            for f in R))

        return epochs(o, v, 1, lambda e: o.implies(began(o, v, e), o.exists(0, v.mlen, lambda k: o.and_(
            o.sel(v.m_le, k) == e, o.sel(v.m_leader, k) == o.sel(h.esl, e), before_registering(e, k)), z.records)))

    def registration_recorded(o: Any, v: KraftVars) -> Any:
        return o.and_(*(o.and_((v.h.reg[b] == 0) == (v.b[b].cbe == b + 1), v.h.reg[b] <= v.mlen) for b in R))

    def lost_not_ahead(o: Any, v: KraftVars) -> Any:
        return o.and_(*(o.ite(v.b[b].has_md, v.h.lost[b] <= v.b[b].md_le, v.h.lost[b] == 0) for b in R))

    def lost_under_another(o: Any, v: KraftVars) -> Any:
        h = v.h
        return o.and_(*(o.and_(o.implies(o.and_(v.b[f].status == RUNNING, h.lost[f] >= 1),
                                          o.sel(h.esl, h.lost[f]) != f),
                               o.implies(v.b[f].status == STARTING_REGISTERED, h.lost[f] == 0)) for f in R))

    def begun_not_ahead(o: Any, v: KraftVars) -> Any:
        h = v.h
        return o.and_(*(o.implies(v.b[f].has_md, epochs(o, v, 1, lambda e, f=f: o.implies(
            o.and_(o.sel(h.esl, e) == f, o.sel(h.esb, e) == v.b[f].cbe), v.b[f].md_le >= e))) for f in R))

    def readded_seen_again(o: Any, v: KraftVars) -> Any:
        parts = []
        for b in R:
            x = v.b[b]
            for f in R:
                if f == b:
                    continue
                again = o.exists(1, v.mlen, lambda k, x=x, f=f: o.and_(
                    k >= v.h.reg[f], o.sel(v.m_le, k) == x.md_le, o.sel(v.m_isr[f], k),
                    o.not_(o.sel(v.m_isr[f], k - 1))), z.records)
                parts.append(o.implies(o.and_(x.role == LEADER, v.h.reg[f] >= 1, again), x.fep[f] == v.b[f].cbe))
        return o.and_(*parts)

    def registered_reads_after(o: Any, v: KraftVars) -> Any:
        parts = []
        for b in R:
            x, k = v.b[b], v.h.reg[b] - 1
            parts.append(o.implies(v.h.reg[b] >= 1, o.and_(
                o.sel(v.m_leader, k) != b, o.not_(o.sel(v.m_isr[b], k)),
                o.implies(o.or_(x.status == RUNNING, x.status == STARTING_REGISTERED), x.md_off >= k),
                o.implies(o.and_(x.status == RUNNING, x.has_md), o.and_(
                    x.md_off > k, x.md_pe >= o.sel(v.m_pe, k))))))
        return o.and_(*parts)

    def seen_within_unless_lost(o: Any, v: KraftVars) -> Any:
        parts = []
        for b in R:
            x = v.b[b]
            for f in R:
                if f != b:
                    seen = o.and_(x.role == LEADER, x.fleo[f] != NIL, x.fep[f] == v.b[f].cbe, v.b[f].status == RUNNING)
                    parts.append(o.implies(seen, o.or_(x.fleo[f] <= v.b[f].llen, v.h.lost[f] > x.md_le)))
        return o.and_(*parts)

    def zombie_seen_within_newer_start(o: Any, v: KraftVars) -> Any:
        h = v.h
        parts = []
        for b in R:
            x = v.b[b]
            for f in R:
                if f == b:
                    continue
                seen = o.and_(x.role == LEADER, x.fleo[f] != NIL, x.fep[f] == v.b[f].cbe)
                parts.append(o.implies(seen, epochs(o, v, x.md_le + 1, lambda e, x=x, f=f: o.implies(
                    o.and_(began(o, v, e), o.sel(h.esl, e) == f, o.sel(h.esb, e) == x.fep[f]),
                    o.or_(o.sel(h.es, e) >= x.fleo[f], o.sel(h.esx, e) > x.md_le)))))
        return o.and_(*parts)

    def zombie_commit_bounded(o: Any, v: KraftVars) -> Any:
        parts = []
        for b in R:
            x = v.b[b]
            members = functions.hw_members(c, x.isr, x.misr)
            commit = functions.commit_offset(o, b, members, x.llen, x.fleo)
            can = rules.hw_isr_ok(o, c.gen, c.min_isr, x.isr)
            parts.append(o.implies(o.and_(x.status == RUNNING, x.has_md), epochs(
                o, v, x.md_le + 1, lambda e, x=x, commit=commit, can=can: o.implies(began(o, v, e), o.and_(
                    x.hw <= o.sel(v.h.es, e), o.implies(o.and_(x.role == LEADER, can), commit <= o.sel(v.h.es, e)))))))
        return o.and_(*parts)

    def lost_at_begun_epoch(o: Any, v: KraftVars) -> Any:
        return o.and_(*(o.implies(o.and_(v.b[f].status == RUNNING, v.h.lost[f] >= 1), began(o, v, v.h.lost[f]))
                        for f in R))

    def begun_after_registration(o: Any, v: KraftVars) -> Any:
        h = v.h
        parts = []
        for f in R:
            again = epochs(o, v, 1, lambda e, f=f: o.implies(
                o.and_(o.sel(h.esl, e) == f, o.sel(h.esb, e) == v.b[f].cbe),
                o.exists(0, v.mlen, lambda k: o.and_(k >= h.reg[f], o.sel(v.m_le, k) == e,
                                                     o.sel(v.m_leader, k) == f), z.records)))
            parts.append(o.implies(h.reg[f] >= 1, again))
        return o.and_(*parts)

    def seen_since_registration(o: Any, v: KraftVars) -> Any:
        h = v.h
        parts = []
        for b in R:
            x = v.b[b]
            for f in R:
                if f == b:
                    continue
                seen = o.and_(x.role == LEADER, x.fleo[f] != NIL, h.reg[f] >= 1)
                # Recorded in the current incarnation: at the leader epoch current at the registration or
                # later; in an earlier one: the leader's epoch was named before the registration.
                parts.append(o.implies(seen, o.ite(
                    x.fep[f] == v.b[f].cbe, x.md_le >= o.sel(v.m_le, h.reg[f] - 1),
                    o.exists(0, h.reg[f], lambda k, x=x: o.sel(v.m_le, k) == x.md_le, z.records))))
        return o.and_(*parts)

    def committer_holds_committed(o: Any, v: KraftVars) -> Any:
        return o.and_(*(o.implies(o.and_(v.h.hwe >= 1, v.b[b].role == LEADER, v.b[b].md_le == v.h.hwe),
                                  o.and_(v.b[b].hw == v.true_hw, v.b[b].llen >= v.true_hw)) for b in R))

    def named_leader_holds_committed(o: Any, v: KraftVars) -> Any:
        parts = []
        for f in R:
            # A record the broker can still read (at or past its metadata offset, since its registration),
            # the only way it begins that epoch.
            named = o.exists(0, v.mlen, lambda k, f=f: o.and_(
                o.sel(v.m_leader, k) == f, k >= v.h.reg[f], k >= v.b[f].md_off, o.sel(v.m_le, k) > v.b[f].md_le,
                o.sel(v.m_le, k) > v.h.hwe, o.not_(began(o, v, o.sel(v.m_le, k)))), z.records)
            parts.append(o.implies(o.and_(v.b[f].status == RUNNING, named), v.b[f].llen >= v.true_hw))
        return o.and_(*parts)

    def added_holds_epoch_start(o: Any, v: KraftVars) -> Any:
        h = v.h
        parts = []
        for f in R:
            def held(k: Any, f: int = f) -> Any:
                e = o.sel(v.m_le, k)
                added = o.and_(o.sel(v.m_isr[f], k), o.not_(o.sel(v.m_isr[f], k - 1)), k >= h.reg[f],
                               o.sel(v.m_leader, k) != f, began(o, v, e))
                return o.implies(added, o.or_(v.b[f].llen >= o.sel(h.es, e), h.lost[f] >= e))
            parts.append(o.forall(1, v.mlen, held, z.records))
        return o.and_(*parts)

    def stale_seen_within_newer_start(o: Any, v: KraftVars) -> Any:
        h = v.h
        parts = []
        for b in R:
            x = v.b[b]
            for f in R:
                if f == b:
                    continue
                seen = o.and_(x.role == LEADER, x.fleo[f] != NIL, x.fep[f] != v.b[f].cbe, x.fep[f] >= 1)
                parts.append(o.implies(seen, epochs(o, v, x.md_le + 1, lambda e, x=x, f=f: o.implies(
                    o.and_(began(o, v, e), o.sel(h.esl, e) == f, o.sel(h.esb, e) == x.fep[f]),
                    o.or_(o.sel(h.es, e) >= x.fleo[f], o.sel(h.esx, e) > x.md_le)))))
        return o.and_(*parts)

    def added_in_begun_epoch(o: Any, v: KraftVars) -> Any:
        def record(k: Any) -> Any:
            added = o.or_(*(o.and_(o.sel(v.m_isr[f], k), o.not_(o.sel(v.m_isr[f], k - 1)), o.sel(v.m_leader, k) != f)
                            for f in R))
            return o.implies(added, began(o, v, o.sel(v.m_le, k)))
        return o.forall(1, v.mlen, record, z.records)

    def added_keeps_epoch_start(o: Any, v: KraftVars) -> Any:
        h = v.h
        parts = []
        for f in R:
            def held(k: Any, f: int = f) -> Any:
                e = o.sel(v.m_le, k)
                added = o.and_(o.sel(v.m_isr[f], k), o.not_(o.sel(v.m_isr[f], k - 1)), k >= h.reg[f],
                               o.sel(v.m_leader, k) != f, began(o, v, e))
                return o.implies(added, o.or_(v.b[f].llen >= o.sel(h.es, e), o.and_(h.lostk[f] > k, h.lost[f] > e),
                                              o.and_(h.lostk[f] > k, v.b[f].status != RUNNING)))
            parts.append(o.forall(1, v.mlen, held, z.records))
        return o.and_(*parts)

    def logged_epochs_begun(o: Any, v: KraftVars) -> Any:
        logs = [(x.llen, x.lep) for x in v.b] + [(v.true_hw, v.cep)]
        return o.and_(*(o.forall(0, n, lambda off, lep=lep: began(o, v, o.sel(lep, off)), z.log) for n, lep in logs))

    def commit_epoch_begun(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        return o.and_(0 <= v.h.hwe, v.h.hwe <= cur.le, (v.true_hw == 0) == (v.h.hwe == 0),
                      o.implies(v.h.hwe >= 1, began(o, v, v.h.hwe)),
                      o.forall(0, v.true_hw, lambda off: o.and_(
                          o.sel(v.cep, off) <= v.h.hwe, began(o, v, o.sel(v.cep, off))), z.log))

    def commit_within_later_starts(o: Any, v: KraftVars) -> Any:
        return epochs(o, v, v.h.hwe + 1, lambda e: o.implies(began(o, v, e), v.true_hw <= o.sel(v.h.es, e)))

    def hw_within_log(o: Any, v: KraftVars) -> Any:
        return o.and_(*(o.implies(v.b[b].status == RUNNING, v.b[b].hw <= v.b[b].llen) for b in R))

    def own_epoch_adds_by_request(o: Any, v: KraftVars) -> Any:
        parts = []
        for b in R:
            x = v.b[b]

            def added(k: Any) -> Any:
                return o.or_(*(o.and_(o.sel(v.m_isr[f], k), o.not_(o.sel(v.m_isr[f], k - 1))) for f in R))

            parts.append(o.implies(x.role == LEADER, o.forall(1, v.mlen, lambda k, x=x, added=added: o.implies(
                o.and_(o.sel(v.m_le, k) == x.md_le, o.sel(v.m_pe, k) > x.md_pe, added(k)),
                o.and_(x.ap_phase == AP_ACCEPTED, o.sel(v.m_pe, k) == x.md_pe + 1)), z.records)))
        return o.and_(*parts)

    lemmas = {
        "EpochStartKept": epoch_start_kept,
        "EpochsBegunIssued": epochs_begun_issued,
        "BegunByNamed": begun_by_named,
        "RegistrationRecorded": registration_recorded,
        "LostNotAhead": lost_not_ahead,
        "LostUnderAnother": lost_under_another,
        "RegisteredReadsAfter": registered_reads_after,
        "ReaddedSeenAgain": readded_seen_again,
        "BegunNotAhead": begun_not_ahead,
        "SeenWithinUnlessLost": seen_within_unless_lost,
        "ZombieSeenWithinNewerStart": zombie_seen_within_newer_start,
        "ZombieCommitBounded": zombie_commit_bounded,
        "HwWithinLog": hw_within_log,
        "LoggedEpochsBegun": logged_epochs_begun,
        "AddedKeepsEpochStart": added_keeps_epoch_start,
        "AddedInBegunEpoch": added_in_begun_epoch,
        "StaleSeenWithinNewerStart": stale_seen_within_newer_start,
        "AddedHoldsEpochStart": added_holds_epoch_start,
        "CommitterHoldsCommitted": committer_holds_committed,
        "NamedLeaderHoldsCommitted": named_leader_holds_committed,
        "SeenSinceRegistration": seen_since_registration,
        "LostAtBegunEpoch": lost_at_begun_epoch,
        "BegunAfterRegistration": begun_after_registration,
        "CommitEpochBegun": commit_epoch_begun,
        "CommitWithinLaterStarts": commit_within_later_starts,
        "OwnEpochAddsByRequest": own_epoch_adds_by_request,
    }
    for name, fn in lemmas.items():
        fn.__doc__ = HISTORY_MEANING[name]
    lemmas.update(history_3_lemmas(c, z))
    if z.epochs is None:  # the unbounded encoding keeps no history: only the lemmas that read none
        return {name: fn for name, fn in lemmas.items() if name in NO_HISTORY}
    return lemmas


# The lemmas here that read no history (offered in the unbounded encoding too).
NO_HISTORY = ("OwnEpochAddsByRequest", "HwWithinLog")


HISTORY_MEANING = {
    **HISTORY_3_MEANING,
    "EpochStartKept": "(history) a leader's epoch start and broker epoch are what the history holds for its leader "
                      "epoch, begun by it",
    "EpochsBegunIssued": "(history) leader epoch 1 has begun, none past the controller's (nor 0); a begun epoch "
                         "has a leader and one of its broker epochs (its initial one or its current one), which "
                         "had lost records then only at an older epoch",
    "BegunByNamed": "(history) the broker that began a leader epoch is the leader a metadata record of that epoch "
                    "names, one before its registration if it began it in an earlier incarnation",
    "RegistrationRecorded": "(history) a broker registered again (the history holds the metadata log's length "
                            "then) exactly when the controller holds a new broker epoch for it",
    "LostNotAhead": "(history) a broker with partition metadata lost records last at its leader epoch or an "
                    "older one; one without (registered again, nothing read since) has lost none since",
    "LostUnderAnother": "(history) a running broker lost records last at a leader epoch it did not begin (as a "
                        "follower, truncating to another leader's log); a registered one has lost none since",
    "RegisteredReadsAfter": "(history) a broker registered again is neither the leader nor in the ISR of the record "
                            "current at its registration, and reads only from that record on (its metadata, once "
                            "it has some, is that record's or newer)",
    "ReaddedSeenAgain": "(history) a leader holds the fetch, in its current incarnation, of a broker registered "
                        "again that a metadata record of the leader's epoch since that registration added to the ISR",
    "BegunNotAhead": "(history) a broker with partition metadata is at least at every leader epoch it began in its "
                     "current incarnation",
    "SeenWithinUnlessLost": "(history) a leader's recorded log end of a running follower, in its current "
                            "incarnation, is within the follower's log unless the follower lost records at a "
                            "newer leader epoch",
    "ZombieSeenWithinNewerStart": "(history) a follower a leader recorded in its current incarnation began every "
                                  "newer leader epoch it leads at that log end or later, unless it had lost records "
                                  "at a leader epoch newer than the recorder's when it began it",
    "ZombieCommitBounded": "(history) a running broker's HW, and the HW it would compute now if it leads, are "
                           "within the epoch start of every newer leader epoch begun",
    "LostAtBegunEpoch": "(history) a running broker lost records last at a leader epoch that has begun (truncating "
                        "under its leader)",
    "BegunAfterRegistration": "(history) a leader epoch a broker registered again began in its current incarnation "
                              "is named with it as leader by a metadata record since that registration",
    "SeenSinceRegistration": "(history) a leader holds the fetch of a broker registered again in its current "
                             "incarnation only at a leader epoch no older than the one current at the registration, "
                             "and in an earlier one only at a leader epoch named before the registration",
    "CommitterHoldsCommitted": "(history) a leader still at the leader epoch at which the committed offset last grew "
                               "has its HW at that offset and holds the committed records",
    "NamedLeaderHoldsCommitted": "(history) a running broker that a metadata record it can still read names leader "
                                 "of a leader epoch newer than the last commit's and its metadata's, not begun yet, "
                                 "holds the committed records",
    "AddedHoldsEpochStart": "(history) a broker an AlterPartition record added to the ISR, since its registration, "
                            "holds its leader epoch's start unless it lost records at that epoch or a newer one",
    "StaleSeenWithinNewerStart": "(history) ZombieSeenWithinNewerStart for a follower a leader recorded in an earlier "
                                 "incarnation: it began every newer leader epoch it led in that incarnation at that "
                                 "log end or later, unless it had lost records then at a newer leader epoch",
    "AddedInBegunEpoch": "(history) a metadata record that adds to the ISR a broker other than its leader (an "
                         "AlterPartition's) is of a leader epoch that has begun",
    "AddedKeepsEpochStart": "(history) a broker an AlterPartition record added to the ISR, since its registration, "
                            "holds that leader epoch's start unless it lost records after that record, at a newer "
                            "leader epoch or in a lossy shutdown",
    "LoggedEpochsBegun": "(history) every record in a log or consumed is of a leader epoch that has begun",
    "CommitEpochBegun": "(history) the committed offset (the true HW) last grew at a leader epoch begun, no newer "
                        "than the controller's (none while nothing is committed), and each committed record's "
                        "leader epoch was begun, no later than that one",
    "CommitWithinLaterStarts": "(history) every leader epoch begun after the one at which the committed offset (the "
                               "true HW) last grew was begun at a log end at least that offset",
    "HwWithinLog": "a running broker's HW is within its log (KIP-966 at these bounds: no committed record is lost)",
    "OwnEpochAddsByRequest": "no metadata record of a leader's epoch newer than its metadata adds an ISR member, "
                             "but its accepted AlterPartition's (the record after its metadata)",
}

# Over the history kept in the bounded symbolic state (vars.History), toward LeaderCompleteness: inductive with
# the 72 lemmas of the five proved sets, 84 in all, in the bounded encoding at K11-fixed's bounds (prove --bounded:
# 614 s under load; docs/kraft.md, "History kept in the symbolic state").
EPOCH_HISTORY_LEMMAS = (
    "EpochStartKept", "EpochsBegunIssued", "BegunByNamed", "RegistrationRecorded", "LostNotAhead",
    "LostUnderAnother", "RegisteredReadsAfter", "ReaddedSeenAgain", "BegunNotAhead", "SeenWithinUnlessLost",
    "ZombieSeenWithinNewerStart", "OwnEpochAddsByRequest",
)
# Not inductive with the sets above alone: what a zombie leader's commit needs; inductive with epoch-history-3 and
# epoch-history-3-2 and the other candidate sets (docs/kraft.md, "The `epoch-history-3` sets"). HwWithinLog reads
# no history and holds in every reachable state at K11-fixed's bounds (BFS); ZombieCommitBounded holds on the
# symbolic walks.
EPOCH_HISTORY_CANDIDATES = ("ZombieCommitBounded", "HwWithinLog")
# Over the commit's history (h.hwe: the leader epoch at which the true HW last grew), where each loss happened
# (h.lostk) and the rest: inductive with
# the 84, 94 in all, in the bounded encoding at K11-fixed's bounds (docs/kraft.md, "History kept in the symbolic
# state"); each was found from a counterexample to induction of LeaderCompleteness or ZombieCommitBounded.
EPOCH_HISTORY_2_LEMMAS = (
    "LoggedEpochsBegun", "CommitEpochBegun", "LostAtBegunEpoch", "BegunAfterRegistration", "SeenSinceRegistration",
    "CommitterHoldsCommitted", "AddedHoldsEpochStart", "StaleSeenWithinNewerStart", "AddedInBegunEpoch",
    "AddedKeepsEpochStart",
)
# What LeaderCompleteness needs of the epochs begun after a commit: inductive with epoch-history-3 and
# epoch-history-3-2 and the other candidate sets (docs/kraft.md, "The `epoch-history-3` sets").
EPOCH_HISTORY_2_CANDIDATES = ("CommitWithinLaterStarts", "NamedLeaderHoldsCommitted")
