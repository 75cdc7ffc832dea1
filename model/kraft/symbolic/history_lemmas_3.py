"""Lemmas over the KRaft symbolic state's history toward LeaderCompleteness, third round: where a
broker's high watermark came from (``h.hwat``: the leader epoch at which it last grew) and what a
follower that lost records under its leader still shares with it (docs/kraft.md, "The
`epoch-history-3` sets").

The counterexamples to induction of the round before were an older leader epoch begun late (a
zombie's or a slow broker's election read after a newer commit) against a high watermark that
``h.hwe`` (the last commit's epoch only) could not date. Per broker, the epoch at which its HW last
grew dates it: every leader epoch begun after it begins at a log end covering that HW
(``HwWithinLaterStarts``), because a broker named leader of an epoch not begun yet holds it
(``NamedLeaderCoversHw``) and a zombie leader's commit is within the log of every such broker
(``ZombieCommitCoversNamed``). With the sets before and their candidates, ``EPOCH_HISTORY_3_LEMMAS_2``
makes LeaderCompleteness inductive at K11-fixed's bounds: 113 lemmas, proved together by
``prove --bounded`` (tests/model/test_kraft_symbolic.py runs the command).

Modelled: the bounded encoding's history only (``vars.History``), so these are offered with
``prove --bounded`` and ``bmc`` only, and are checked on the symbolic walks, not on BFS's states.
Abstracted away: nothing of the configuration; a record named "not begun" is one the broker can
still read (at or past its metadata offset, since its registration), the only way it begins it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from isrcheck.model.kraft.config import KraftConfig
from isrcheck.model.kraft.fields import LEADER, NIL, RUNNING, STARTING_REGISTERED

from .. import functions, rules
from .steps import Cur
from .vars import KraftVars, Sizes

Lemma = Callable[[Any, KraftVars], Any]


def history_3_lemmas(c: KraftConfig, z: Sizes) -> dict[str, Lemma]:
    """The lemmas of this module by name (bounded encoding: ``z.epochs`` is set)."""
    R = range(c.brokers)
    if z.epochs is None:
        return {}

    def began(o: Any, v: KraftVars, e: Any) -> Any:
        return o.sel(v.h.es, e) != NIL

    def epoch_leader(o: Any, v: KraftVars, e: Any, leader: int) -> Any:
        """``leader`` still leads leader epoch ``e`` in the incarnation that began it."""
        y = v.b[leader]
        return o.and_(o.sel(v.h.esl, e) == leader, y.status == RUNNING, y.role == LEADER, y.md_le == e,
                      y.bepoch == o.sel(v.h.esb, e))

    def still_named(o: Any, v: KraftVars, f: int, k: Any, above: Any) -> Any:
        """Record ``k`` names ``f`` leader of a leader epoch past ``above`` that ``f`` can still begin: not
        begun, newer than its metadata, at or past its metadata offset, since its registration."""
        e = o.sel(v.m_le, k)
        return o.and_(o.sel(v.m_leader, k) == f, k >= v.h.reg[f], k >= v.b[f].md_off, e > above, e > v.b[f].md_le,
                      o.not_(began(o, v, e)))

    def loss_kept_where(o: Any, v: KraftVars) -> Any:
        h = v.h
        return o.and_(*(o.and_(o.implies(o.and_(v.b[f].status == RUNNING, h.lostk[f] >= 1), h.lost[f] >= 1),
                               o.implies(v.b[f].status == STARTING_REGISTERED, h.lostk[f] == 0),
                               o.implies(h.lostk[f] >= 1, h.lostk[f] >= h.reg[f])) for f in R))

    def loss_before_begin(o: Any, v: KraftVars) -> Any:
        h = v.h
        return o.and_(*(o.forall(1, z.epochs, lambda e, f=f: o.implies(
            o.and_(began(o, v, e), o.sel(h.esl, e) == f, o.sel(h.esb, e) == v.b[f].cbe, h.lost[f] < e),
            o.sel(h.esx, e) == h.lost[f]), z.epochs) for f in R))

    def hw_at_begun(o: Any, v: KraftVars) -> Any:
        h = v.h
        return o.and_(*(o.and_(
            o.implies(v.b[b].has_md, h.hwat[b] <= v.b[b].md_le),
            o.implies(o.or_(v.b[b].status == STARTING_REGISTERED, o.and_(v.b[b].status == RUNNING,
                                                                          o.not_(v.b[b].has_md))), h.hwat[b] == 0),
            o.implies(o.and_(v.b[b].status == RUNNING, v.b[b].hw >= 1),
                      o.and_(h.hwat[b] >= 1, began(o, v, h.hwat[b])))) for b in R))

    def hw_from_epoch_leader(o: Any, v: KraftVars) -> Any:
        parts = []
        for b in R:
            for leader in R:
                y = v.b[leader]
                parts.append(o.implies(o.and_(v.b[b].status == RUNNING, epoch_leader(o, v, v.h.hwat[b], leader)),
                                       o.and_(y.llen >= v.b[b].hw, y.hw >= v.b[b].hw)))
        return o.and_(*parts)

    def lost_within_leader(o: Any, v: KraftVars) -> Any:
        parts = []
        for f in R:
            x = v.b[f]
            for leader in R:
                if leader != f:
                    parts.append(o.implies(o.and_(x.status == RUNNING, x.has_md, v.h.lost[f] == x.md_le,
                                                  epoch_leader(o, v, x.md_le, leader)), x.llen <= v.b[leader].llen))
        return o.and_(*parts)

    def hw_within_later_starts(o: Any, v: KraftVars) -> Any:
        h = v.h
        return o.and_(*(o.implies(v.b[b].status == RUNNING, o.forall(1, z.epochs, lambda e, b=b: o.implies(
            o.and_(e > h.hwat[b], began(o, v, e)), v.b[b].hw <= o.sel(h.es, e)), z.epochs)) for b in R))

    def named_leader_covers_hw(o: Any, v: KraftVars) -> Any:
        parts = []
        for f in R:
            for b in R:
                named = o.exists(0, v.mlen, lambda k, f=f, b=b: still_named(o, v, f, k, v.h.hwat[b]), z.records)
                parts.append(o.implies(o.and_(v.b[f].status == RUNNING, v.b[b].status == RUNNING, named),
                                       v.b[f].llen >= v.b[b].hw))
        return o.and_(*parts)

    def zombie_commit_covers_named(o: Any, v: KraftVars) -> Any:
        parts = []
        for b in R:
            x = v.b[b]
            commit = functions.commit_offset(o, b, functions.hw_members(c, x.isr, x.misr), x.llen, x.fleo)
            can = rules.hw_isr_ok(o, c.gen, c.min_isr, x.isr)
            for f in R:
                if f != b:
                    named = o.exists(0, v.mlen, lambda k, f=f, x=x: still_named(o, v, f, k, x.md_le), z.records)
                    parts.append(o.implies(o.and_(x.status == RUNNING, x.role == LEADER, can,
                                                  v.b[f].status == RUNNING, named), commit <= v.b[f].llen))
        return o.and_(*parts)

    def readded_since_registration(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        parts = []
        for f in R:
            added = o.exists(1, v.mlen, lambda k, f=f: o.and_(k >= v.h.reg[f], o.sel(v.m_isr[f], k),
                                                              o.not_(o.sel(v.m_isr[f], k - 1))), z.records)
            parts.append(o.implies(o.and_(v.h.reg[f] >= 1, o.or_(cur.isr[f], cur.elr[f])), added))
        return o.and_(*parts)

    def copied_since_registration(o: Any, v: KraftVars) -> Any:
        h = v.h
        parts = []
        for f in R:
            x = v.b[f]
            low = o.sel(v.m_le, h.reg[f] - 1)  # the leader epoch current at the registration

            def copied(i: Any, x: Any = x, low: Any = low) -> Any:
                r = o.sel(x.lep, i)
                return o.exists(1, z.epochs, lambda e: o.and_(e >= low, e <= x.md_le, began(o, v, e),
                                                              o.or_(r == e, o.sel(h.es, e) > i)), z.epochs)
            parts.append(o.implies(o.and_(h.reg[f] >= 1, x.has_md), o.forall(0, x.llen, copied, z.log)))
        return o.and_(*parts)

    def seen_within_or_newer_start(o: Any, v: KraftVars) -> Any:
        h = v.h
        parts = []
        for b in R:
            x = v.b[b]
            for f in R:
                if f == b:
                    continue
                y = v.b[f]
                seen = o.and_(x.role == LEADER, x.fleo[f] != NIL, x.fep[f] == y.cbe, y.status == RUNNING)
                kept = o.exists(1, z.epochs, lambda e, x=x, y=y, f=f: o.and_(
                    e > x.md_le, e <= h.lost[f], began(o, v, e), o.sel(h.es, e) <= y.llen), z.epochs)
                parts.append(o.implies(seen, o.or_(x.fleo[f] <= y.llen, kept)))
        return o.and_(*parts)

    def commit_read_by_members(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        return o.and_(*(o.implies(o.and_(v.b[f].status == RUNNING, o.or_(cur.isr[f], cur.elr[f])),
                                  o.and_(v.b[f].has_md, v.b[f].md_le >= v.h.hwe)) for f in R))

    lemmas = {
        "LossKeptWhere": loss_kept_where,
        "LossBeforeBegin": loss_before_begin,
        "HwAtBegun": hw_at_begun,
        "HwFromEpochLeader": hw_from_epoch_leader,
        "LostWithinLeader": lost_within_leader,
        "HwWithinLaterStarts": hw_within_later_starts,
        "NamedLeaderCoversHw": named_leader_covers_hw,
        "ZombieCommitCoversNamed": zombie_commit_covers_named,
        "ReaddedSinceRegistration": readded_since_registration,
        "CopiedSinceRegistration": copied_since_registration,
        "SeenWithinOrNewerStart": seen_within_or_newer_start,
        "CommitReadByMembers": commit_read_by_members,
    }
    for name, fn in lemmas.items():
        fn.__doc__ = HISTORY_3_MEANING[name]
    return lemmas


HISTORY_3_MEANING = {
    "LossKeptWhere": "(history) a running broker that lost records since registering lost them at a leader epoch "
                     "(not in its lossy shutdown, which a registration forgets); one awaiting its registration "
                     "response has lost none since; a loss recorded is no older than the registration",
    "LossBeforeBegin": "(history) a broker that began a leader epoch in its current incarnation and last lost "
                       "records at an older epoch had lost them before it began it (the history holds that loss "
                       "for the epoch)",
    "HwAtBegun": "(history) a broker's HW last grew at a leader epoch no newer than its metadata (none since it "
                 "registered again, until it reads a record); a running broker with a HW got it at an epoch begun",
    "HwFromEpochLeader": "(history) the leader of the epoch at which a broker's HW last grew, while it still leads "
                         "that epoch in the same incarnation, has a HW and a log end at least that HW",
    "LostWithinLeader": "(history) a follower that lost records at its current leader epoch has a log no longer "
                        "than that epoch's leader, while it leads it (it truncated to its log, then copied it)",
    "HwWithinLaterStarts": "(history) every leader epoch begun after the one at which a running broker's HW last "
                           "grew began at a log end at least that HW",
    "NamedLeaderCoversHw": "(history) a running broker that a record it can still read names leader of an epoch "
                           "not begun, newer than the one at which a running broker's HW last grew, holds that HW",
    "ZombieCommitCoversNamed": "(history) the HW a leader would compute now is within the log of every running "
                               "broker that a record it can still read names leader of a newer epoch not begun",
    "ReaddedSinceRegistration": "(history) a broker registered again is in the ISR or ELR only after a metadata "
                                "record since its registration added it to the ISR",
    "CopiedSinceRegistration": "(history) every record in the log of a broker registered again was copied since, "
                               "from the leader of an epoch from the one current at its registration to its "
                               "metadata's: a record of that epoch, or one below that epoch's start",
    "SeenWithinOrNewerStart": "(history) a leader's recorded log end of a running follower (current incarnation) "
                              "is within the follower's log, or the follower lost records at a newer leader epoch "
                              "whose start is within its log",
    "CommitReadByMembers": "(history) every running member of the controller's ISR or ELR has read the leader "
                           "epoch at which the committed offset last grew, or a newer one",
}

# Inductive with the 94 (the proved sets through epoch-history-2), 99 in all, in the bounded encoding at
# K11-fixed's bounds (docs/kraft.md, "The `epoch-history-3` sets").
EPOCH_HISTORY_3_LEMMAS = ("LossKeptWhere", "LossBeforeBegin", "HwAtBegun", "HwFromEpochLeader", "LostWithinLeader")
# With the 99 and the candidates of the sets before (leader-completeness-candidates, epoch-history-candidates,
# epoch-history-2-candidates), inductive together at K11-fixed's bounds: LeaderCompleteness is proved with them
# (docs/kraft.md, "The `epoch-history-3` sets").
EPOCH_HISTORY_3_LEMMAS_2 = (
    "HwWithinLaterStarts", "NamedLeaderCoversHw", "ZombieCommitCoversNamed", "ReaddedSinceRegistration",
    "CopiedSinceRegistration", "SeenWithinOrNewerStart", "CommitReadByMembers",
)
