"""Candidate lemmas over ``KraftVars`` for proofs by induction of the KRaft family (``isrcheck prove
--lemma NAME``), each a protocol fact a Kafka engineer would state about one configuration.

None is assumed: ``prove`` checks each one it is given (initiation and consecution, relative to the
others), and ``--houdini`` drops those that are not inductive. ``STRUCTURAL_LEMMAS`` are proved
together on ``kraft-kip966`` at K11-fixed's bounds (docs/kraft.md#prove-and-the-familys-lemmas),
with ``METADATA_LEMMAS`` (what elections and AlterPartitions append to the metadata log) and
``HISTORY_LEMMAS``; ``BOUNDED_INDUCTIVE_LEMMAS`` are inductive with them and each other in the bounded encoding at
those bounds (the history of the metadata log, zombie leaders, what a leader knows of its
followers' logs), but the unbounded query does not answer for ``MetadataIsARecord``, which the
later ones need. ``EPOCH_WRITER_LEMMAS`` are inductive with all of those in the bounded encoding
too (who writes a leader epoch's records, what a pending AlterPartition adds, how brokers leave
the ISR and come back after registering again). ``LEADER_COMPLETENESS_CANDIDATES`` are what
LeaderCompleteness needs next (the data side: which brokers hold the committed records), true
in every reachable state at those bounds and not inductive yet, as docs/kraft.md describes.
``EPOCH_HISTORY_LEMMAS`` (``history_lemmas.py``) read the history the symbolic state keeps
(``vars.History``) and are inductive with all the proved sets in the bounded encoding.
Some hold only in one generation (Kafka 3.5 keeps a fenced last ISR member, so ``IsrUnfenced``
is KIP-966's): a lemma is a claim about a configuration, checked there, never a rule of the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from isrcheck.model.kraft.config import KraftConfig
from isrcheck.model.kraft.fields import (
    AP_ACCEPTED,
    AP_REQUEST,
    FOLLOWER,
    LEADER,
    NIL,
    NO_ROLE,
    OFFLINE_CLEAN,
    OFFLINE_DIRTY,
    RUNNING,
    STARTING,
    STARTING_REGISTERED,
)

from .. import functions, rules
from . import history_lemmas as history_module
from . import history_lemmas_3
from .steps import Cur
from .vars import KraftVars, Sizes

Lemma = Callable[[Any, KraftVars], Any]


def kraft_lemmas(c: KraftConfig, z: Sizes) -> dict[str, Lemma]:
    R, L = range(c.brokers), z.log
    elr = c.gen.elr

    def holds_fetch(o: Any, x: Any, f: int, y: Any) -> Any:
        """Leader ``x`` holds the fetch of broker ``f`` (state ``y``) in the incarnation the controller knows."""
        return o.and_(x.role == LEADER, x.fleo[f] != NIL, x.fep[f] == y.cbe)

    def proposes(o: Any, x: Any, f: int, y: Any) -> Any:
        """``x``'s AlterPartition request adds broker ``f`` (state ``y``) in the incarnation the controller knows."""
        return o.and_(x.ap_phase == AP_REQUEST, x.ap_isr[f], o.not_(x.isr[f]), x.ap_ep[f] == y.cbe)

    def member(o: Any, v: KraftVars, b: int, k: Any) -> Any:
        """Broker b is in the ISR (KIP-966: or the ELR) of metadata record k."""
        return o.or_(o.sel(v.m_isr[b], k), o.sel(v.m_elr[b], k)) if elr else o.sel(v.m_isr[b], k)

    def leader_in_isr(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        return o.and_(*(o.implies(cur.leader == j, cur.isr[j]) for j in R))

    def lost_log(o: Any, v: KraftVars, j: int) -> Any:
        """Broker j lost its log in a lossy shutdown and has not registered since."""
        x = v.b[j]
        return o.and_(o.or_(x.status == OFFLINE_DIRTY, x.status == STARTING), x.bepoch == 0, o.not_(x.unf))

    def running_has_epoch(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.and_(o.implies(x.status == RUNNING, x.bepoch >= 1),
                      o.implies(x.status == STARTING_REGISTERED, x.reg_resp >= 1))

    def seen_with_epoch(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.and_(*(o.implies(x.fleo[f] != NIL, x.fep[f] >= 1) for f in R if f != b))

    def non_leader_blank(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.implies(x.role != LEADER, o.and_(x.ap_phase == 0, x.wfloor == z.nof,
                                                  *(x.fleo[f] == NIL for f in R), *(x.fep[f] == 0 for f in R)))

    def metadata_ordered(o: Any, v: KraftVars) -> Any:
        """Each metadata record's partition epoch is one more than the one before, its leader epoch no
        smaller, and a record's leader is in its ISR."""
        mr = z.records
        steps = o.forall(1, v.mlen, lambda i: o.and_(o.sel(v.m_pe, i) == o.sel(v.m_pe, i - 1) + 1,
                                                     o.sel(v.m_le, i) >= o.sel(v.m_le, i - 1)), mr)
        inside = o.forall(0, v.mlen, lambda i: o.and_(*(o.implies(o.sel(v.m_leader, i) == j, o.sel(v.m_isr[j], i))
                                                      for j in R)), mr)
        return o.and_(steps, inside)

    def first_record_initial(o: Any, v: KraftVars) -> Any:
        """The metadata log's first record is the initial one (the controller only appends): broker
        1 leads at leader epoch 1, brokers 1..InitIsrSize are the ISR, the ELR is empty."""
        pe = 1 if c.init_isr_size == c.replication_factor else 2
        return o.and_(o.sel(v.m_leader, 0) == 0, o.sel(v.m_le, 0) == 1, o.sel(v.m_pe, 0) == pe,
                      *(o.sel(v.m_isr[j], 0) == (j < c.init_isr_size) for j in R),
                      *(o.not_(o.sel(v.m_elr[j], 0)) for j in R))

    def one_registration(o: Any, v: KraftVars) -> Any:
        """With at most one shutdown in all (the symbolic form's limit) the controller issues one broker
        epoch past the initial ones, after that shutdown: each broker holds its initial epoch
        (its id) or that one, and only the broker that shut down is not running or holds another."""
        n = c.brokers
        moved = [o.or_(v.b[j].status != RUNNING, v.b[j].cbe != j + 1) for j in R]  # it shut down
        return o.and_(v.last_be <= n + v.unclean + v.clean,
                      *(o.or_(v.b[j].cbe == j + 1, o.and_(v.b[j].cbe == v.last_be, v.last_be == n + 1)) for j in R),
                      *(o.implies(moved[j], v.unclean + v.clean >= 1) for j in R),
                      *(o.implies(o.or_(v.b[j].status == OFFLINE_DIRTY, v.b[j].status == OFFLINE_CLEAN,
                                        v.b[j].status == STARTING), o.and_(v.b[j].cbe == j + 1, v.last_be == n))
                        for j in R),
                      *(o.not_(o.and_(moved[j], moved[k])) for j in R for k in R if j < k))

    def log_epochs_issued(o: Any, v: KraftVars) -> Any:
        """Every record in a log or consumed was written at a leader epoch the controller has issued
        (from 1 to the current record's): a leader writes at its own."""
        top = Cur(o, v).le
        logs = [(x.llen, x.lep) for x in v.b] + [(v.true_hw, v.cep)]
        return o.and_(*(o.forall(0, n, lambda off, ep=ep: o.and_(o.sel(ep, off) >= 1, o.sel(ep, off) <= top), L)
                        for n, ep in logs))

    def blank_until_read(o: Any, v: KraftVars, b: int) -> Any:
        """A running broker without partition metadata (registered again, no record read since)
        has the blank metadata the registration response gave it and no role; without clean
        shutdowns it came back from a lossy one, so its log is empty too."""
        x = v.b[b]
        blank = [x.md_le == 0, x.md_pe == 0, x.md_leader == NIL, x.role == NO_ROLE, *(o.not_(x.isr[f]) for f in R)]
        if not c.clean_shutdowns:
            blank.append(x.llen == 0)
        return o.implies(o.and_(x.status == RUNNING, o.not_(x.has_md)), o.and_(*blank))

    def proposer_read_before(o: Any, v: KraftVars, b: int) -> Any:
        """A running broker at the leader epoch of an AlterPartition record it leads (a record that
        grew the ISR within its leader epoch) has metadata at least at the record before it: it
        proposed from there, and a broker's partition epoch never goes back."""
        x = v.b[b]

        def grew(k: Any) -> Any:
            return o.or_(*(o.and_(o.sel(v.m_isr[g], k), o.not_(o.sel(v.m_isr[g], k - 1))) for g in R))

        return o.implies(o.and_(x.status == RUNNING, x.has_md), o.forall(1, v.mlen, lambda k: o.implies(
            o.and_(o.sel(v.m_leader, k) == b, o.sel(v.m_le, k) == o.sel(v.m_le, k - 1), grew(k),
                   x.md_le == o.sel(v.m_le, k)),
            x.md_pe >= o.sel(v.m_pe, k - 1)), z.records))

    def log_not_ahead(o: Any, v: KraftVars, b: int) -> Any:
        """No record in a broker's log has a leader epoch past the one its metadata has (a leader
        writes at its own epoch, a follower copies from a leader at its epoch, and a broker's
        leader epoch only grows while it keeps its log)."""
        x = v.b[b]
        return o.forall(0, x.llen, lambda off: o.sel(x.lep, off) <= x.md_le, L)

    def leader_metadata_recorded(o: Any, v: KraftVars, b: int) -> Any:
        """A leader's metadata is a record of the metadata log, at or past the first (its leader
        epoch no newer than the controller's): only a broker outside the initial ISR starts with
        metadata before it, and such a broker leads only after reading a record."""
        x, cur = v.b[b], Cur(o, v)
        return o.implies(x.role == LEADER, o.and_(x.md_pe >= o.sel(v.m_pe, 0), x.md_pe <= cur.pe,
                                                  x.md_le >= 1, x.md_le <= cur.le))

    def seen_epoch_is_followers(o: Any, v: KraftVars, b: int) -> Any:
        """The broker epoch a leader holds for a follower (in its follower state or its AlterPartition)
        is none (0) or one the follower held: its initial one (its id) or the one the controller
        holds for it now (with at most one shutdown, a broker holds at most two)."""
        x = v.b[b]
        return o.and_(*(o.or_(e == 0, e == f + 1, e == v.b[f].cbe)
                        for f in R if f != b for e in (x.fep[f], x.ap_ep[f])))

    def records_isr_elr_disjoint(o: Any, v: KraftVars) -> Any:
        """No metadata record has a broker in both its ISR and its ELR (IsrElrDisjoint, for every
        record the controller appended, not only the current one)."""
        return o.forall(0, v.mlen, lambda k: o.and_(*(o.not_(o.and_(o.sel(v.m_isr[j], k), o.sel(v.m_elr[j], k)))
                                                      for j in R)), z.records)

    def epochs_issued(o: Any, v: KraftVars) -> Any:
        """Every broker epoch anywhere is one the controller has issued (at most the last)."""
        parts = []
        for x in v.b:
            parts += [x.bepoch <= v.last_be, x.reg_resp <= v.last_be, x.cbe <= v.last_be]
            parts += [e <= v.last_be for e in x.fep + x.ap_ep]
        return o.and_(*parts)

    def fresh_registration(o: Any, v: KraftVars, b: int) -> Any:
        """A broker's new broker epoch is newer than any a leader recorded for it."""
        x = v.b[b]
        return o.implies(x.status == STARTING_REGISTERED, o.and_(
            *(v.b[ld].fep[b] < x.reg_resp for ld in R if ld != b)))

    def epoch_one_leader(o: Any, v: KraftVars) -> Any:
        """Consecutive metadata records of one leader epoch name the same leader (an election, or no
        leader, starts a new epoch)."""
        return o.forall(1, v.mlen, lambda i: o.implies(o.sel(v.m_le, i) == o.sel(v.m_le, i - 1),
                                                       o.sel(v.m_leader, i) == o.sel(v.m_leader, i - 1)), z.records)

    def metadata_leader_matches(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.implies(x.has_md, o.forall(0, v.mlen, lambda i: o.implies(
            o.sel(v.m_le, i) == x.md_le, o.sel(v.m_leader, i) == x.md_leader), z.records))

    def broker_metadata_not_ahead(o: Any, v: KraftVars, b: int) -> Any:
        cur, x = Cur(o, v), v.b[b]
        return o.and_(x.md_le <= cur.le, x.md_pe <= cur.pe, o.implies(x.ap_phase == AP_ACCEPTED, x.md_pe < cur.pe))

    def metadata_is_a_record(o: Any, v: KraftVars, b: int) -> Any:
        """A broker's partition metadata is the metadata record of its partition epoch (the partition
        epochs are consecutive, MetadataOrdered), or the one before the log's first (the initial
        metadata of a broker that has not read it: the first record's leader and leader epoch), and
        an accepted AlterPartition of a leader is the record after it, of the same leader and leader
        epoch. A leader's AlterPartition is accepted at its partition epoch, so this ties the leader a
        broker believes it is to the controller's record."""
        x = v.b[b]
        i = x.md_pe - o.sel(v.m_pe, 0)
        j = o.ite(i < 0, 0, i)
        accepted = o.implies(x.ap_phase == AP_ACCEPTED, o.and_(
            0 <= i, i + 1 < v.mlen, o.sel(v.m_le, i + 1) == x.md_le, o.sel(v.m_leader, i + 1) == b,
            *(o.sel(v.m_isr[f], i + 1) == x.ap_isr[f] for f in R)))
        same_isr = o.implies(0 <= i, o.and_(*(o.sel(v.m_isr[f], i) == x.isr[f] for f in R)))
        return o.implies(x.has_md, o.and_(-1 <= i, i < v.mlen, o.sel(v.m_le, j) == x.md_le,
                                          o.sel(v.m_leader, j) == x.md_leader, same_isr, accepted))

    def current_metadata_matches(o: Any, v: KraftVars, b: int) -> Any:
        """A broker whose partition metadata is at the controller's partition epoch has the current
        record's leader, leader epoch and ISR (partition epochs name records one to one; a leader's
        accepted AlterPartition is the record it appended): the part of MetadataIsARecord that
        the unbounded encoding answers without index arithmetic."""
        x, cur = v.b[b], Cur(o, v)
        return o.implies(o.and_(x.has_md, x.md_pe == cur.pe), o.and_(
            x.md_leader == cur.leader, x.md_le == cur.le, *(x.isr[f] == cur.isr[f] for f in R)))

    def unapplied_not_older(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.forall(x.md_off, v.mlen, lambda i: o.sel(v.m_le, i) >= x.md_le, z.records)

    def zombie_out_of_isr(o: Any, v: KraftVars, b: int) -> Any:
        """A leading broker is in the ISR of a metadata record of a newer leader epoch than its own only
        as that record's leader, alone (it lost the leadership by leaving the ISR and came back through
        the ELR; any other way back runs through the newer leader's AlterPartition, which it would
        have had to follow)."""
        x = v.b[b]
        return o.implies(x.role == LEADER, o.forall(0, v.mlen, lambda i: o.implies(
            o.and_(o.sel(v.m_le, i) > x.md_le, o.sel(v.m_isr[b], i)),
            o.and_(o.sel(v.m_leader, i) == b, *(o.not_(o.sel(v.m_isr[f], i)) for f in R if f != b))), z.records))

    def new_epoch_new_leader(o: Any, v: KraftVars) -> Any:
        """A metadata record's leader epoch is the one before or one more, and one more only with
        another leader (or none)."""
        return o.forall(1, v.mlen, lambda i: o.and_(
            o.or_(o.sel(v.m_le, i) == o.sel(v.m_le, i - 1), o.sel(v.m_le, i) == o.sel(v.m_le, i - 1) + 1),
            o.implies(o.sel(v.m_le, i) != o.sel(v.m_le, i - 1), o.sel(v.m_leader, i) != o.sel(v.m_leader, i - 1))),
            z.records)

    def leader_change_drops_leader(o: Any, v: KraftVars) -> Any:
        """A metadata record of a new leader epoch does not have the previous record's leader in its
        ISR: on KIP-966 the controller moves the leadership only when the leader leaves the ISR (fenced
        or shut down), and an election from the ELR happens only once the partition has no leader."""
        return o.forall(1, v.mlen, lambda i: o.implies(o.sel(v.m_le, i) != o.sel(v.m_le, i - 1), o.and_(*(
            o.implies(o.sel(v.m_leader, i - 1) == j, o.not_(o.sel(v.m_isr[j], i))) for j in R))), z.records)

    def election_adds_only_leader(o: Any, v: KraftVars) -> Any:
        """A metadata record of a new leader epoch adds no broker to the ISR but its new leader: an
        election only removes members or, from the ELR, makes the elected broker the ISR; growing
        the ISR is the leader's AlterPartition, within its epoch."""
        return o.forall(1, v.mlen, lambda i: o.implies(o.sel(v.m_le, i) != o.sel(v.m_le, i - 1), o.and_(*(
            o.implies(o.sel(v.m_isr[j], i), o.or_(o.sel(v.m_isr[j], i - 1), o.sel(v.m_leader, i) == j))
            for j in R))), z.records)

    def outside_election_alone(o: Any, v: KraftVars) -> Any:
        """A metadata record whose leader was not in the previous record's ISR has that leader alone
        in its ISR: KIP-966 elects from the ISR first, and from the ELR (or an unfenced broker of a
        leaderless partition) only when no ISR member is left, making the elected broker the ISR."""
        return o.forall(1, v.mlen, lambda k: o.and_(*(o.implies(
            o.and_(o.sel(v.m_leader, k) == j, o.not_(o.sel(v.m_isr[j], k - 1))),
            o.and_(*(o.not_(o.sel(v.m_isr[g], k)) for g in R if g != j))) for j in R)), z.records)

    def elr_from_isr(o: Any, v: KraftVars) -> Any:
        """A broker in a metadata record's ELR was in the previous record's ISR or ELR: KIP-966 moves
        to the ELR only ISR members removed below min ISR."""
        return o.forall(1, v.mlen, lambda k: o.and_(*(o.implies(
            o.sel(v.m_elr[j], k), o.or_(o.sel(v.m_elr[j], k - 1), o.sel(v.m_isr[j], k - 1))) for j in R)), z.records)

    def elected_from_members(o: Any, v: KraftVars) -> Any:
        """The leader of a metadata record of a new leader epoch was in the previous record's ISR or
        ELR: the controller elects from the ISR, then from the unfenced ELR (no unclean election)."""
        if not elr:
            return True
        return o.forall(1, v.mlen, lambda k: o.and_(*(o.implies(
            o.and_(o.sel(v.m_leader, k) == j, o.sel(v.m_le, k) != o.sel(v.m_le, k - 1)),
            o.or_(o.sel(v.m_isr[j], k - 1), o.sel(v.m_elr[j], k - 1))) for j in R)), z.records)

    def request_members_known(o: Any, v: KraftVars, b: int) -> Any:
        """An AlterPartition in flight proposes, besides its leader, members of the leader's ISR (with
        broker epoch 0) or followers it saw fetch (with the broker epoch they fetched with)."""
        x = v.b[b]
        return o.implies(x.ap_phase != 0, o.and_(*(o.implies(
            x.ap_isr[f], o.or_(o.and_(x.isr[f], x.ap_ep[f] == 0), x.ap_ep[f] >= 1)) for f in R if f != b)))

    def seen_not_zombie(o: Any, v: KraftVars, b: int) -> Any:
        """A leader does not record the fetches of a broker, in its incarnation the controller knows,
        that leads at an older leader epoch, nor propose to add such a broker to the ISR (a follower
        fetches at its leader's epoch and its leader epoch only grows; a broker that led at an older
        epoch and still does never followed this leader)."""
        x = v.b[b]
        parts = []
        for f in R:
            if f == b:
                continue
            y = v.b[f]
            zombie = o.and_(y.role == LEADER, y.md_le < x.md_le)
            parts.append(o.implies(holds_fetch(o, x, f, y), o.not_(zombie)))
            parts.append(o.implies(proposes(o, x, f, y), o.not_(zombie)))
        return o.and_(*parts)

    def unread_member_alone(o: Any, v: KraftVars, b: int) -> Any:
        """A registered broker awaiting its response, or a running one without partition metadata
        (it registered and has not read a record naming it a replica), is in the ISR of a metadata
        record it has not read (or of the current record, which it may have passed over as not
        newer) only as that record's leader, alone: nothing it did (no fetch) can have added it,
        only an election from the ELR."""
        x = v.b[b]
        fresh = o.or_(x.status == STARTING_REGISTERED, o.and_(o.not_(x.has_md), x.status == RUNNING))
        start = o.ite(x.md_off < v.mlen, x.md_off, v.mlen - 1)  # and the current record
        return o.implies(fresh, o.forall(start, v.mlen, lambda k: o.implies(o.sel(v.m_isr[b], k), o.and_(
            o.sel(v.m_leader, k) == b, *(o.not_(o.sel(v.m_isr[f], k)) for f in R if f != b))), z.records))

    def no_leader_no_isr(o: Any, v: KraftVars) -> Any:
        """A metadata record without a leader has an empty ISR: every ISR member is unfenced
        (IsrUnfenced), so the controller elects one of them whenever the ISR is not empty."""
        return o.forall(0, v.mlen, lambda k: o.implies(o.sel(v.m_leader, k) == NIL, o.and_(
            *(o.not_(o.sel(v.m_isr[f], k)) for f in R))), z.records)

    def unfetched_not_seen(o: Any, v: KraftVars, f: int) -> Any:
        """A broker registered and awaiting its response, or running without partition metadata, has
        not fetched in the incarnation the controller knows: no leader recorded it, or proposed it,
        with that broker epoch (so an AlterPartition adding it is rejected)."""
        y = v.b[f]
        fresh = o.or_(y.status == STARTING_REGISTERED, o.and_(o.not_(y.has_md), y.status == RUNNING))
        return o.implies(fresh, o.and_(*(o.and_(v.b[b].fep[f] != y.cbe, v.b[b].ap_ep[f] != y.cbe)
                                         for b in R if b != f)))

    def running_epoch_is_controllers(o: Any, v: KraftVars, b: int) -> Any:
        """A running broker's broker epoch is the one the controller holds for it: with at most one
        shutdown in all (the symbolic form's limit) no registration request is stale."""
        x = v.b[b]
        return o.and_(o.implies(x.status == RUNNING, x.bepoch == x.cbe),
                      o.implies(x.status == STARTING_REGISTERED, x.reg_resp == x.cbe))

    def read_own_record(o: Any, v: KraftVars, b: int) -> Any:
        """A running broker with metadata has read up to the record its metadata is, and no further,
        except, for the leader those records name, records of its own leader epoch (the ones its
        accepted AlterPartitions appended, which the responses gave it): reading a record moves the
        offset just past it."""
        x = v.b[b]
        i = x.md_pe - o.sel(v.m_pe, 0)
        return o.implies(o.and_(x.has_md, x.status == RUNNING), o.and_(
            x.md_off <= i + 1, o.implies(x.md_off <= i, x.md_leader == b),
            o.forall(x.md_off, i + 1, lambda k: o.sel(v.m_le, k) == x.md_le, z.records)))

    def follower_unread_not_older(o: Any, v: KraftVars, b: int) -> Any:
        """A broker whose fetch a leader holds (or whose addition its AlterPartition request proposes),
        in the incarnation the controller knows, has not left unread any metadata record of a leader
        epoch older than the leader's: it fetched at the leader's epoch, after reading its record."""
        x = v.b[b]
        parts = []
        for f in R:
            if f == b:
                continue
            y = v.b[f]
            unread_newer = o.forall(y.md_off, v.mlen, lambda k: o.sel(v.m_le, k) >= x.md_le, z.records)
            seen = o.or_(holds_fetch(o, x, f, y), proposes(o, x, f, y))
            parts.append(o.implies(o.and_(seen, y.status == RUNNING), unread_newer))
        return o.and_(*parts)

    def added_member_read_epoch(o: Any, v: KraftVars, f: int) -> Any:
        """A running broker with partition metadata that an AlterPartition record it has not read
        added to the ISR (a record of the same leader epoch as the one before, which did not have
        it), or whose own AlterPartition grew the ISR in such a record, is at that leader epoch
        already: the leader proposed it for a fetch at its epoch, in the incarnation the controller
        accepted, a leader proposes at its own epoch, and a broker's leader epoch only grows."""
        y = v.b[f]
        start = o.ite(y.md_off < 1, 1, y.md_off)
        def added(g: int, k: Any) -> Any:
            return o.and_(o.sel(v.m_isr[g], k), o.not_(o.sel(v.m_isr[g], k - 1)))

        def by_it(k: Any) -> Any:  # an ISR growth within a leader epoch that added f, or that f proposed
            grew = o.or_(added(f, k), o.and_(o.sel(v.m_leader, k) == f, *[o.or_(*(added(g, k) for g in R))]))
            return o.and_(o.sel(v.m_le, k) == o.sel(v.m_le, k - 1), grew)

        return o.implies(o.and_(y.status == RUNNING, y.has_md), o.forall(start, v.mlen, lambda k: o.implies(
            by_it(k), y.md_le >= o.sel(v.m_le, k)), z.records))

    def seen_at_leader_epoch(o: Any, v: KraftVars, b: int) -> Any:
        """A leader that holds the fetch of a running follower with partition metadata (or proposes
        to add it), in the incarnation the controller knows, is not at a leader epoch past the
        follower's: the follower fetched at the leader's epoch, and keeps it or moves on."""
        x = v.b[b]
        parts = []
        for f in R:
            if f == b:
                continue
            y = v.b[f]
            seen = o.or_(holds_fetch(o, x, f, y), proposes(o, x, f, y))
            parts.append(o.implies(o.and_(seen, y.status == RUNNING, y.has_md), y.md_le >= x.md_le))
        return o.and_(*parts)

    def seen_epoch_not_newer(o: Any, v: KraftVars, b: int) -> Any:
        """No leader holds, in its follower state or its AlterPartition, a broker epoch of a follower
        newer than the one the controller holds for it (the follower fetched with its epoch, which
        the controller issued)."""
        x = v.b[b]
        return o.and_(*(o.and_(x.fep[f] <= v.b[f].cbe, x.ap_ep[f] <= v.b[f].cbe) for f in R if f != b))

    def follower_prefix(o: Any, v: KraftVars, b: int) -> Any:
        """A running follower whose fetch a leader holds, with the broker epoch and at the leader
        epoch it fetched with, has a log that is a prefix of the leader's, at least as long as the
        log end the leader recorded: it copied the leader's records at that epoch, a leader's log
        only grows, and a follower truncates only on a leader's diverging epoch."""
        x = v.b[b]
        parts = []
        for f in R:
            if f == b:
                continue
            y = v.b[f]
            held = o.and_(x.role == LEADER, x.fleo[f] != NIL, x.fep[f] == y.bepoch, y.md_le == x.md_le,
                          y.status == RUNNING)
            parts.append(o.implies(held, o.and_(x.fleo[f] <= y.llen, y.llen <= x.llen, o.forall(
                0, y.llen, lambda off, y=y: o.sel(y.lep, off) == o.sel(x.lep, off), L))))
        return o.and_(*parts)

    def starting_lost_log(o: Any, v: KraftVars, b: int) -> Any:
        """Without clean shutdowns (every broker starts running), a starting broker, registered or
        not, came back from a lossy shutdown: no log, HW 0, broker epoch 0 on disk."""
        x = v.b[b]
        if c.clean_shutdowns:
            return True
        return o.and_(x.status != OFFLINE_CLEAN, o.implies(o.or_(x.status == STARTING, x.status == STARTING_REGISTERED),
                                                            o.and_(x.llen == 0, x.hw == 0, x.bepoch == 0)))

    def unclean_registered_out(o: Any, v: KraftVars, b: int) -> Any:
        """A broker registered without a broker epoch (back from a lossy shutdown) and awaiting its
        response is in neither the controller's ISR nor its ELR: KIP-966's unclean registration
        removes it from both, and nothing adds it back before it runs and fetches."""
        x, cur = v.b[b], Cur(o, v)
        gone = o.not_(o.or_(cur.isr[b], cur.elr[b])) if elr else o.not_(cur.isr[b])
        return o.implies(o.and_(x.status == STARTING_REGISTERED, x.bepoch == 0), gone)

    def leader_maximal_isr(o: Any, v: KraftVars, b: int) -> Any:
        """A leader is in its own ISR; its maximal ISR is its ISR, and while an AlterPartition is in flight or answered
        (its response not yet read) the ISR and the proposal together; the log ends it recorded of
        its followers are within its own log."""
        x = v.b[b]
        same = o.and_(*(x.misr[f] == x.isr[f] for f in R))
        own = x.isr[b]
        union = o.and_(*(x.misr[f] == o.or_(x.isr[f], x.ap_isr[f]) for f in R))
        return o.implies(x.role == LEADER, o.and_(
            own, o.implies(x.ap_phase == 0, same), o.implies(x.ap_phase != 0, union),
            *(x.fleo[f] <= x.llen for f in R if f != b)))

    def stale_seen_not_member(o: Any, v: KraftVars, b: int) -> Any:
        """A leader at the controller's leader epoch that holds a follower's fetch from an earlier
        incarnation (a broker epoch the controller no longer holds for it) does not have that
        follower in the controller's ISR or ELR: the follower lost its log, was removed from both,
        and is added back only through a fetch in its new incarnation, which this leader would
        have recorded."""
        x, cur = v.b[b], Cur(o, v)
        parts = []
        for f in R:
            if f == b:
                continue
            m = o.or_(cur.isr[f], cur.elr[f]) if elr else cur.isr[f]
            stale = o.and_(x.role == LEADER, x.md_le == cur.le, x.fleo[f] != NIL, x.fep[f] != v.b[f].cbe)
            parts.append(o.implies(stale, o.not_(m)))
        return o.and_(*parts)

    def request_epoch_seen(o: Any, v: KraftVars, b: int) -> Any:
        """An AlterPartition request in flight names, for each follower it adds, a broker epoch no
        newer than the one its leader holds from the follower's fetches (it was that one when
        proposed, and a later fetch only brings a newer incarnation's)."""
        x = v.b[b]
        return o.implies(x.ap_phase == AP_REQUEST, o.and_(*(o.implies(
            o.and_(x.ap_isr[f], o.not_(x.isr[f])), o.and_(x.fleo[f] != NIL, x.ap_ep[f] <= x.fep[f]))
            for f in R if f != b)))

    def hw_bound_covered(o: Any, v: KraftVars, b: int) -> Any:
        """The high watermark a running leader would compute now (GetCommitOffset over whom it
        counts, where its ISR lets the HW advance) is within the log of every member of the
        controller's ISR and ELR that has not lost its log: what a HW advance needs to keep
        CommittedOnMembers. (Not that each recorded log end of a member is within its log: a
        zombie leader keeps a follower's log end after the follower truncated under the next
        leader, which lacked the record, and counts it; it cannot advance because it counts
        that next leader too, whose recorded log end is short.)"""
        x, cur = v.b[b], Cur(o, v)
        members = functions.hw_members(c, x.isr, x.misr)
        commit = functions.commit_offset(o, b, members, x.llen, x.fleo)
        can = rules.hw_isr_ok(o, c.gen, c.min_isr, x.isr)
        parts = []
        for f in R:
            m = o.or_(cur.isr[f], cur.elr[f]) if elr else cur.isr[f]
            parts.append(o.implies(o.and_(m, o.not_(lost_log(o, v, f))), commit <= v.b[f].llen))
        return o.implies(o.and_(x.status == RUNNING, x.role == LEADER, can), o.and_(*parts))

    def follower_leo_seen(o: Any, v: KraftVars, b: int) -> Any:
        """A leader's view of a follower's log end is not past it while the follower keeps the broker
        epoch and the leader epoch it fetched with."""
        x = v.b[b]
        return o.implies(x.role == LEADER, o.and_(*(o.implies(
            o.and_(x.fleo[f] != NIL, x.fep[f] == v.b[f].bepoch, v.b[f].md_le == x.md_le), x.fleo[f] <= v.b[f].llen)
            for f in R if f != b)))

    def blank_is_registered(o: Any, v: KraftVars, b: int) -> Any:
        """A broker awaiting its registration response, or without partition metadata, holds (at the
        controller) the one broker epoch issued past the initial ones: every broker starts with
        metadata, only a registration response blanks it (no reassignment here), and with one
        shutdown in all it does not stop again."""
        x = v.b[b]
        fresh = o.or_(x.status == STARTING_REGISTERED, o.not_(x.has_md))
        return o.implies(fresh, o.and_(x.cbe == v.last_be, v.last_be == c.brokers + 1))

    def leader_holds_own_epoch(o: Any, v: KraftVars, b: int) -> Any:
        """A leader holds, at the same offset, every record of its own leader epoch that any log holds
        or a consumer read: only the leader of an epoch writes records of it, others copy them,
        and a leader's log only grows while it leads (a follower truncates, a leader never)."""
        x = v.b[b]
        logs = [(y.llen, y.lep) for y in v.b] + [(v.true_hw, v.cep)]
        return o.implies(x.role == LEADER, o.and_(*(o.forall(0, n, lambda off, ep=ep: o.implies(
            o.sel(ep, off) == x.md_le, o.and_(off < x.llen, o.sel(x.lep, off) == x.md_le)), L) for n, ep in logs)))

    def epoch_writer_read(o: Any, v: KraftVars, b: int) -> Any:
        """The leader a metadata record names for its leader epoch has read that epoch (its leader
        epoch is at least it) once any log holds a record of it, unless the record came before its
        registration and the registration blanked its metadata (no record read since): only that
        leader writes records of its epoch, after reading the record naming it, a broker's leader
        epoch only grows until a registration blanks its metadata, and the records it reads after
        registering are newer."""
        x = v.b[b]
        logs = [(y.llen, y.lep) for y in v.b] + [(v.true_hw, v.cep)]
        return o.forall(0, v.mlen, lambda k: o.implies(o.sel(v.m_leader, k) == b, o.and_(*(
            o.forall(0, n, lambda off, ep=ep: o.implies(o.sel(ep, off) == o.sel(v.m_le, k), o.or_(
                o.and_(x.has_md, x.md_le >= o.sel(v.m_le, k)),
                o.and_(o.or_(o.not_(x.has_md), x.status == STARTING_REGISTERED), k < x.md_off))),
                     L) for n, ep in logs))), z.records)

    def leader_epoch_start(o: Any, v: KraftVars, b: int) -> Any:
        """A leader's epoch start is within its log; the records before it are of older leader epochs,
        those from it on of its own (it starts at the log end it had when it read the record naming
        it, whose records were all older, and writes only at its own epoch)."""
        x = v.b[b]
        return o.implies(x.role == LEADER, o.and_(0 <= x.eps, x.eps <= x.llen, o.forall(0, x.llen, lambda off: o.ite(
            off < x.eps, o.sel(x.lep, off) < x.md_le, o.sel(x.lep, off) == x.md_le), L)))

    def epoch_start_covers_committed(o: Any, v: KraftVars, b: int) -> Any:
        """A leader at the controller's leader epoch has every committed record below its epoch start
        (it held them when elected) or below its own high watermark (it committed them since)."""
        x, cur = v.b[b], Cur(o, v)
        return o.implies(o.and_(x.role == LEADER, x.md_le == cur.le), o.or_(v.true_hw <= x.eps, v.true_hw <= x.hw))

    def registering_metadata_old(o: Any, v: KraftVars, b: int) -> Any:
        """A broker awaiting its registration response has metadata no newer than the record its
        metadata offset names (the controller's current record when it registered, which it will
        read first): it has read nothing since it stopped. Neither that record nor a later one names
        it leader, and neither the current record nor one after that has it in the ISR or the ELR,
        while it awaits its response or has read nothing since: its shutdown fenced it, so it was
        not the leader when it registered, the unclean registration took it out of the ISR and the
        ELR, which an election chooses from, and only an AlterPartition naming its new epoch, for
        a fetch it has not made, would add it back."""
        x = v.b[b]
        fresh = o.or_(x.status == STARTING_REGISTERED, o.and_(x.status == RUNNING, o.not_(x.has_md)))
        return o.and_(o.implies(x.status == STARTING_REGISTERED, o.and_(
            0 <= x.md_off, x.md_off < v.mlen, x.md_pe <= o.sel(v.m_pe, x.md_off))),
            o.implies(fresh, x.md_off < v.mlen),
            o.implies(fresh, o.forall(x.md_off, v.mlen, lambda k: o.and_(o.sel(v.m_leader, k) != b, o.implies(
                o.or_(k > x.md_off, k == v.mlen - 1), o.not_(member(o, v, b, k)))), z.records)))

    def one_leaves_at_a_time(o: Any, v: KraftVars) -> Any:
        """Between consecutive metadata records at most one broker leaves the ISR, unless the record
        is an AlterPartition's: the formula reads that as a record of the previous record's leader
        epoch that names a leader (EpochOneLeader makes it the same leader). Every other change is
        one broker's fencing, shutdown or registration."""
        def left(j: int, k: Any) -> Any:
            return o.and_(o.sel(v.m_isr[j], k - 1), o.not_(o.sel(v.m_isr[j], k)))

        return o.forall(1, v.mlen, lambda k: o.or_(
            o.and_(o.sel(v.m_le, k) == o.sel(v.m_le, k - 1), o.sel(v.m_leader, k) != NIL),
            *[o.and_(*(o.not_(o.and_(left(j, k), left(g, k))) for j in R for g in R if j < g))]), z.records)

    def request_caught_up(o: Any, v: KraftVars, b: int) -> Any:
        """A follower a leader's AlterPartition (in flight or accepted) adds, while the leader holds the fetches
        of the incarnation it named, was caught up to the leader's epoch start and high watermark
        when proposed, and stays so: that incarnation's recorded log end only grows while the
        leader leads, and the HW counts it (the maximal ISR). The leader holds a fetch of the
        follower, of that incarnation or a newer one (RequestEpochSeen, kept once accepted)."""
        x = v.b[b]
        pending = o.or_(x.ap_phase == AP_REQUEST, x.ap_phase == AP_ACCEPTED)
        parts = []
        for f in R:
            if f != b:
                added = o.and_(x.ap_isr[f], o.not_(x.isr[f]))
                parts.append(o.implies(added, o.and_(x.fleo[f] != NIL, x.ap_ep[f] <= x.fep[f])))
                parts.append(o.implies(o.and_(added, x.fep[f] == x.ap_ep[f]),
                                       o.and_(x.fleo[f] >= x.eps, x.fleo[f] >= x.hw)))
        return o.implies(o.and_(x.role == LEADER, pending), o.and_(*parts))

    def leaver_fenced_or_stopped(o: Any, v: KraftVars) -> Any:
        """A broker that left the ISR between two metadata records is fenced now, has stopped or
        registered again since, or a fencing happened (it may have been unfenced again since):
        without leader shrinks an AlterPartition only adds members, so a broker leaves the ISR by
        its fencing, its shutdown or its unclean registration."""
        if c.leader_shrinks:
            return True
        moved = [o.or_(v.b[j].status != RUNNING, v.b[j].cbe != j + 1, o.not_(v.b[j].unf)) for j in R]
        return o.or_(v.fencings >= 1, o.forall(1, v.mlen, lambda k: o.and_(*(o.implies(
            o.and_(o.sel(v.m_isr[j], k - 1), o.not_(o.sel(v.m_isr[j], k))), moved[j]) for j in R)), z.records))

    def request_keeps_isr(o: Any, v: KraftVars, b: int) -> Any:
        """Without leader shrinks, a leader's AlterPartition (in flight or answered) proposes every
        member of its ISR: a member stays unless timed out."""
        x = v.b[b]
        if c.leader_shrinks:
            return True
        return o.implies(x.ap_phase != 0, o.and_(*(o.implies(x.isr[f], x.ap_isr[f]) for f in R)))

    def fenced_never_member(o: Any, v: KraftVars, b: int) -> Any:
        """A running broker the controller counts fenced, in its first incarnation, with no fencing
        so far, was never unfenced (a broker outside the initial ISR): it is in no metadata record's
        ISR or ELR, since joining needs an unfenced broker and leaving the unfenced state a fencing
        or a shutdown."""
        x = v.b[b]
        return o.implies(o.and_(v.fencings == 0, x.status == RUNNING, x.cbe == b + 1, o.not_(x.unf)),
                         o.forall(0, v.mlen, lambda k: o.not_(member(o, v, b, k)), z.records))

    def named_leader_leads(o: Any, v: KraftVars, b: int) -> Any:
        """A running broker whose metadata names it leader is in the leader role: applying a record
        that names it makes it leader (or keeps it), and only a lossy stop, which stops it, or a
        record naming another broker takes the role away."""
        x = v.b[b]
        return o.implies(o.and_(x.status == RUNNING, x.has_md, x.md_leader == b), x.role == LEADER)

    def read_not_older(o: Any, v: KraftVars, b: int) -> Any:
        """A broker with partition metadata is at least at the partition and leader epoch of the last
        record it read (it applied it, or skipped it as not newer), except while awaiting its
        registration response (the registration moved its offset to the current record), and a
        running broker that registered again has read a record since (the response blanked its
        metadata)."""
        x = v.b[b]
        last = x.md_off - 1
        return o.and_(
            o.implies(o.and_(x.has_md, x.md_off >= 1, x.status != STARTING_REGISTERED),
                      o.and_(x.md_pe >= o.sel(v.m_pe, last), x.md_le >= o.sel(v.m_le, last))),
            o.implies(o.and_(x.status == RUNNING, x.has_md, x.cbe != b + 1), x.md_off >= 1))

    def isr_losses_counted(o: Any, v: KraftVars) -> Any:
        """The ISR losses along the metadata log (a broker in a record's ISR and not in the next's)
        are no more than the fencings and shutdowns so far: without leader shrinks a broker leaves
        the ISR only by its fencing or its shutdown (which fences it), one per event. A sum over the
        records, so only where the metadata log has a bound (the bounded encoding, explicit states)."""
        if c.leader_shrinks:
            return True
        size = z.records if z.records is not None else (v.mlen if isinstance(v.mlen, int) else None)
        if size is None:
            return True
        losses = [o.ite(o.and_(k < v.mlen, o.sel(v.m_isr[j], k - 1), o.not_(o.sel(v.m_isr[j], k))), 1, 0)
                  for k in range(1, size) for j in R]
        return sum(losses[1:], losses[0]) <= v.fencings + v.unclean + v.clean if losses else True

    def registered_again_left(o: Any, v: KraftVars, b: int) -> Any:
        """A broker the controller holds at a new broker epoch (it shut down and registered again) is
        outside the ISR and the ELR of some metadata record: its shutdown fenced it out of the ISR,
        its unclean registration took it out of the ELR, and records are only appended."""
        x = v.b[b]
        return o.implies(x.cbe != b + 1, o.exists(0, v.mlen, lambda k: o.not_(member(o, v, b, k)), z.records))

    def elr_only_under_min_isr(o: Any, v: KraftVars) -> Any:
        """A metadata record whose ISR has min.insync.replicas members has an empty ELR: UpdateElr
        empties it whenever the new ISR is that large, and an election or a registration that keeps
        the ISR keeps the ELR (KIP-966; elections from the ELR leave one member)."""
        if not elr:
            return True
        return o.forall(0, v.mlen, lambda k: o.implies(
            rules.at_least(o, [o.sel(v.m_isr[j], k) for j in R], c.min_isr),
            o.and_(*(o.not_(o.sel(v.m_elr[j], k)) for j in R))), z.records)

    def committed_on_members(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        parts = []
        for j in R:
            m = o.or_(cur.isr[j], cur.elr[j]) if elr else cur.isr[j]
            parts.append(o.implies(m, o.or_(v.b[j].llen >= v.true_hw, lost_log(o, v, j))))
        return o.or_(v.true_hw == 0, o.and_(*parts))

    def one_epoch_per_value(o: Any, v: KraftVars) -> Any:
        logs = [(x.llen, x.lep, x.lval) for x in v.b] + [(v.true_hw, v.cep, v.cval)]
        parts = []
        for a in range(len(logs)):
            for b in range(a, len(logs)):
                (la, ea, va), (lb, eb, vb) = logs[a], logs[b]
                parts.append(o.forall(0, la, lambda p, la=la, ea=ea, va=va, lb=lb, eb=eb, vb=vb: o.forall(
                    0, lb, lambda q: o.implies(o.sel(va, p) == o.sel(vb, q),
                                               o.and_(p == q, o.sel(ea, p) == o.sel(eb, q))), L), L))
        return o.and_(*parts)

    def per_broker(fn: Callable[[Any, KraftVars, int], Any]) -> Lemma:
        return lambda o, v: o.and_(*(fn(o, v, b) for b in R))

    def stopped_idle(o: Any, v: KraftVars, b: int) -> Any:
        """A broker not running has no role, no fetcher and no AlterPartition in flight."""
        x = v.b[b]
        return o.implies(x.status != RUNNING, o.and_(x.role == NO_ROLE, x.ap_phase == 0, x.fetch_from == NIL))

    def dirty_empty(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.implies(x.status == OFFLINE_DIRTY, o.and_(x.llen == 0, x.hw == 0, x.bepoch == 0, o.not_(x.unf)))

    def unfenced_registered(o: Any, v: KraftVars, b: int) -> Any:
        """The controller unfences only a registered broker; a shutdown fences it."""
        x = v.b[b]
        return o.implies(x.unf, o.or_(x.status == RUNNING, x.status == STARTING_REGISTERED))

    def leader_role_shape(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.implies(x.role == LEADER, o.and_(x.md_leader == b, x.has_md, x.fetch_from == NIL))

    def follower_role_shape(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.implies(x.role == FOLLOWER, o.and_(x.fetch_from == x.md_leader, x.md_leader != b,
                                                    x.md_leader != NIL, x.has_md))

    def no_role_no_fetch(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.implies(x.role != FOLLOWER, x.fetch_from == NIL)

    def request_names_sender(o: Any, v: KraftVars, b: int) -> Any:
        x = v.b[b]
        return o.implies(x.ap_phase != 0, o.and_(x.role == LEADER, x.ap_isr[b]))

    def hw_within_true_hw(o: Any, v: KraftVars, b: int) -> Any:
        return v.b[b].hw <= v.true_hw

    def isr_unfenced(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        return o.and_(*(o.implies(cur.isr[j], v.b[j].unf) for j in R))

    def isr_elr_disjoint(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        return o.and_(*(o.not_(o.and_(cur.isr[j], cur.elr[j])) for j in R))

    def leader_unfenced(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        return o.and_(*(o.implies(cur.leader == j, v.b[j].unf) for j in R))

    def unsent_nowhere(o: Any, v: KraftVars) -> Any:
        """A value not yet written is in no log and was not consumed; an answered value was sent."""
        logs = [(x.llen, x.lval) for x in v.b] + [(v.true_hw, v.cval)]
        parts = []
        for val in range(c.values):
            parts += [o.implies(o.or_(v.acked[val], v.nacked[val]), v.sent[val])]
            parts += [o.implies(o.not_(v.sent[val]), o.forall(0, n, lambda p, a=a, val=val: o.sel(a, p) != val, L))
                      for n, a in logs]
        return o.and_(*parts)

    lemmas = {
        "UnsentNowhere": unsent_nowhere,
        "StoppedBrokerIdle": per_broker(stopped_idle),
        "LossyStopEmptiesLog": per_broker(dirty_empty),
        "UnfencedIsRegistered": per_broker(unfenced_registered),
        "LeaderRoleShape": per_broker(leader_role_shape),
        "FollowerRoleShape": per_broker(follower_role_shape),
        "OnlyFollowersFetch": per_broker(no_role_no_fetch),
        "RequestNamesSender": per_broker(request_names_sender),
        "HwWithinTrueHw": per_broker(hw_within_true_hw),
        "IsrUnfenced": isr_unfenced,
        "IsrElrDisjoint": isr_elr_disjoint,
        "LeaderUnfenced": leader_unfenced,
        "LeaderInIsr": leader_in_isr,
        "RunningHasEpoch": per_broker(running_has_epoch),
        "NonLeaderBlank": per_broker(non_leader_blank),
        "MetadataOrdered": metadata_ordered,
        "BrokerMetadataNotAhead": per_broker(broker_metadata_not_ahead),
        "EpochOneLeader": epoch_one_leader,
        "EpochsIssued": epochs_issued,
        "RecordsIsrElrDisjoint": records_isr_elr_disjoint,
        "SeenEpochIsFollowers": per_broker(seen_epoch_is_followers),
        "LogEpochsIssued": log_epochs_issued,
        "ProposerReadBefore": per_broker(proposer_read_before),
        "BlankUntilRead": per_broker(blank_until_read),
        "LogNotAhead": per_broker(log_not_ahead),
        "LeaderMetadataRecorded": per_broker(leader_metadata_recorded),
        "OneRegistration": one_registration,
        "FirstRecordInitial": first_record_initial,
        "FreshRegistration": per_broker(fresh_registration),
        "MetadataLeaderMatches": per_broker(metadata_leader_matches),
        "UnappliedNotOlder": per_broker(unapplied_not_older),
        "MetadataIsARecord": per_broker(metadata_is_a_record),
        "CurrentMetadataMatches": per_broker(current_metadata_matches),
        "SeenWithEpoch": per_broker(seen_with_epoch),
        "NewEpochNewLeader": new_epoch_new_leader,
        "LeaderChangeDropsLeader": leader_change_drops_leader,
        "ElectionAddsOnlyLeader": election_adds_only_leader,
        "RequestMembersKnown": per_broker(request_members_known),
        "ElectedFromMembers": elected_from_members,
        "ElrFromIsr": elr_from_isr,
        "OutsideElectionAlone": outside_election_alone,
        "SeenNotZombie": per_broker(seen_not_zombie),
        "UnreadMemberAlone": per_broker(unread_member_alone),
        "NoLeaderNoIsr": no_leader_no_isr,
        "UnfetchedNotSeen": per_broker(unfetched_not_seen),
        "RunningEpochIsControllers": per_broker(running_epoch_is_controllers),
        "ReadOwnRecord": per_broker(read_own_record),
        "FollowerUnreadNotOlder": per_broker(follower_unread_not_older),
        "ZombieOutOfIsr": per_broker(zombie_out_of_isr),
        "AddedMemberReadEpoch": per_broker(added_member_read_epoch),
        "SeenAtLeaderEpoch": per_broker(seen_at_leader_epoch),
        "SeenEpochNotNewer": per_broker(seen_epoch_not_newer),
        "FollowerPrefix": per_broker(follower_prefix),
        "HwBoundCovered": per_broker(hw_bound_covered),
        "RequestEpochSeen": per_broker(request_epoch_seen),
        "StaleSeenNotMember": per_broker(stale_seen_not_member),
        "LeaderMaximalIsr": per_broker(leader_maximal_isr),
        "StartingLostLog": per_broker(starting_lost_log),
        "UncleanRegisteredOut": per_broker(unclean_registered_out),
        "FollowerLeoSeen": per_broker(follower_leo_seen),
        "CommittedOnMembers": committed_on_members,
        "BlankIsRegistered": per_broker(blank_is_registered),
        "LeaderHoldsOwnEpoch": per_broker(leader_holds_own_epoch),
        "EpochWriterRead": per_broker(epoch_writer_read),
        "OneLeavesAtATime": one_leaves_at_a_time,
        "ElrOnlyUnderMinIsr": elr_only_under_min_isr,
        "RegisteredAgainLeft": per_broker(registered_again_left),
        "IsrLossesCounted": isr_losses_counted,
        "ReadNotOlder": per_broker(read_not_older),
        "NamedLeaderLeads": per_broker(named_leader_leads),
        "FencedNeverMember": per_broker(fenced_never_member),
        "RequestKeepsIsr": per_broker(request_keeps_isr),
        "LeaverFencedOrStopped": leaver_fenced_or_stopped,
        "RequestCaughtUp": per_broker(request_caught_up),
        "RegisteringMetadataOld": per_broker(registering_metadata_old),
        "LeaderEpochStart": per_broker(leader_epoch_start),
        "EpochStartCoversCommitted": per_broker(epoch_start_covers_committed),
        "OneEpochPerValue": one_epoch_per_value,
    }
    for name, fn in lemmas.items():
        fn.__doc__ = MEANING[name]
    return {**lemmas, **history_module.history_lemmas(c, z)}  # the history's lemmas (history_lemmas.py) name their docs


MEANING = {
    "UnsentNowhere": "a value not yet written is in no log and was not consumed; an answered value was sent",
    "StoppedBrokerIdle": "a broker that is not running has no role, no fetcher and no AlterPartition in flight",
    "LossyStopEmptiesLog": "a broker stopped by a lossy shutdown has an empty log, HW 0, no broker epoch and is fenced",
    "UnfencedIsRegistered": "the controller counts a broker unfenced only while it is registered (running or "
                            "awaiting its registration response)",
    "LeaderRoleShape": "a broker in the leader role names itself leader, has partition metadata and fetches "
                       "from no one",
    "FollowerRoleShape": "a follower fetches from the leader its metadata names, another broker",
    "OnlyFollowersFetch": "a broker that is not a follower fetches from no one",
    "RequestNamesSender": "an AlterPartition in flight is a leader's, and its proposed ISR contains the leader",
    "HwWithinTrueHw": "no broker's high watermark is past the highest one any leader reached (invTrueHwm)",
    "IsrUnfenced": "every member of the controller's ISR is unfenced (KIP-966: fencing removes a broker from the ISR)",
    "IsrElrDisjoint": "no broker is in both the controller's ISR and its ELR (not everywhere: an AlterPartition "
                      "that re-adds an ELR member while the ISR stays under min.insync.replicas keeps it in the "
                      "ELR, e.g. 3 replicas, min.insync.replicas 3; proved at K11-fixed's bounds)",
    "LeaderUnfenced": "the controller's leader is unfenced",
    "LeaderInIsr": "the controller's leader is in its ISR",
    "RunningHasEpoch": "a running broker has a broker epoch, and a registered one has one coming",
    "NonLeaderBlank": "a broker that is not leading keeps no follower state, no AlterPartition and no write floor",
    "MetadataOrdered": "each metadata record's partition epoch is the one before plus one, its leader epoch no "
                       "smaller, and its leader is in its ISR",
    "BrokerMetadataNotAhead": "no broker's leader or partition epoch is past the controller's (nor the one an "
                              "accepted AlterPartition gives it)",
    "UnappliedNotOlder": "the metadata records a broker has not read yet have leader epochs no older than the "
                         "one it has applied",
    "MetadataIsARecord": "a broker's partition metadata is the metadata record of its partition epoch (the same "
                         "leader, leader epoch and ISR), and an accepted AlterPartition the record after it",
    "CurrentMetadataMatches": "a broker whose partition metadata is at the controller's partition epoch has the "
                              "current record's leader, leader epoch and ISR",
    "FirstRecordInitial": "the metadata log's first record is the initial one (broker 1 leads at leader epoch 1 "
                          "with the initial ISR, no ELR)",
    "OneRegistration": "the controller issued at most one broker epoch past the initial ones, after the one "
                       "shutdown; each broker holds its initial epoch or that one; only the broker that shut down "
                       "is not running or holds another",
    "LogNotAhead": "no record in a broker's log has a leader epoch past the one its metadata has",
    "BlankUntilRead": "a running broker without partition metadata has blank metadata and no role (without clean "
                      "shutdowns: no log)",
    "ProposerReadBefore": "a running broker at the leader epoch of an AlterPartition record it leads has metadata "
                          "at least at the record before it",
    "LogEpochsIssued": "every record in a log or consumed has a leader epoch the controller issued (1 to the "
                       "current record's)",
    "LeaderMetadataRecorded": "a leader's partition epoch is the first record's or later, and its leader epoch one "
                              "the controller issued",
    "SeenEpochIsFollowers": "the broker epoch a leader holds for a follower is none, the follower's initial one or "
                            "the one the controller holds for it",
    "RecordsIsrElrDisjoint": "no metadata record has a broker in both its ISR and its ELR",
    "EpochsIssued": "every broker epoch a broker, a leader or the controller holds is one the controller issued",
    "FreshRegistration": "a broker's new broker epoch is newer than any a leader recorded for it",
    "EpochOneLeader": "consecutive metadata records of one leader epoch name the same leader",
    "MetadataLeaderMatches": "the leader a broker's metadata names is the one every metadata record of its leader "
                             "epoch names",
    "SeenWithEpoch": "a leader records a follower's log end with the follower's broker epoch",
    "NewEpochNewLeader": "a metadata record's leader epoch is the one before or one more, and one more only with "
                         "another leader (or none)",
    "LeaderChangeDropsLeader": "a metadata record of a new leader epoch does not have the previous record's "
                               "leader in its ISR (KIP-966 moves the leadership only when the leader leaves the ISR)",
    "ElectionAddsOnlyLeader": "a metadata record of a new leader epoch adds no broker to the ISR but its new "
                              "leader (the ISR grows by AlterPartition, within a leader epoch)",
    "OutsideElectionAlone": "a metadata record whose leader was not in the previous record's ISR has that "
                            "leader alone in its ISR (an election from the ELR, once no ISR member is left)",
    "ElrFromIsr": "a broker in a metadata record's ELR was in the previous record's ISR or ELR",
    "ElectedFromMembers": "the leader of a metadata record of a new leader epoch was in the previous record's ISR "
                          "or ELR (KIP-966)",
    "RequestMembersKnown": "an AlterPartition in flight proposes, besides its leader, members of the leader's ISR "
                           "(broker epoch 0) or followers it saw fetch (their broker epoch)",
    "SeenNotZombie": "a leader neither records the fetches of, nor proposes to add, a broker (the incarnation the "
                     "controller knows) that still leads at an older leader epoch",
    "UnreadMemberAlone": "a registered broker (awaiting its response, or running without partition metadata) is "
                         "in the ISR of a metadata record it has not read, or of the current record, only as that "
                         "record's leader, alone",
    "UnfetchedNotSeen": "no leader holds, in its follower state or an AlterPartition, the broker epoch the "
                        "controller knows for a broker that has not fetched in that incarnation",
    "NoLeaderNoIsr": "a metadata record without a leader has an empty ISR",
    "RunningEpochIsControllers": "a running broker's broker epoch (a registered one's coming epoch) is the one the "
                                 "controller holds for it",
    "ReadOwnRecord": "a running broker's metadata offset is at most one past the record its metadata is, and "
                     "short of it only for a leader, whose unread records up to it are of its own leader epoch",
    "FollowerUnreadNotOlder": "a broker whose fetch a leader holds (or proposes to add) has no unread metadata "
                              "record of a leader epoch older than the leader's",
    "ZombieOutOfIsr": "a leading broker is in the ISR of a metadata record of a newer leader epoch than its own "
                      "only as its leader, alone",
    "AddedMemberReadEpoch": "a running broker with partition metadata is at least at the leader epoch of every "
                            "AlterPartition record it has not read that added it to the ISR, or that it proposed",
    "SeenAtLeaderEpoch": "a leader that holds the fetch of a running follower with partition metadata (or "
                         "proposes to add it), in the incarnation the controller knows, is not at a leader epoch "
                         "past the follower's",
    "SeenEpochNotNewer": "no leader holds a follower's broker epoch newer than the one the controller holds for "
                         "it",
    "StartingLostLog": "without clean shutdowns, no broker is stopped cleanly, and a starting broker (registered "
                       "or not) has no log, HW 0 and broker epoch 0",
    "UncleanRegisteredOut": "a broker registered without a broker epoch and awaiting its response is in neither "
                            "the controller's ISR nor its ELR",
    "LeaderMaximalIsr": "a leader is in its own ISR; its maximal ISR is its ISR, with the proposal while an "
                        "AlterPartition is pending; "
                        "the follower log ends it recorded are within its log",
    "StaleSeenNotMember": "a leader at the controller's leader epoch that holds a follower's fetch from an "
                          "earlier incarnation does not have it in the controller's ISR or ELR",
    "RequestEpochSeen": "an AlterPartition request in flight names, for each follower it adds, a broker epoch no "
                        "newer than the one its leader holds from the follower's fetches",
    "HwBoundCovered": "the high watermark a running leader would compute now is within the log of every member "
                      "of the controller's ISR and ELR that has not lost its log",
    "FollowerPrefix": "a running follower whose fetch a leader holds, at the broker epoch and leader epoch it "
                      "fetched with, has a prefix of the leader's log, at least as long as the log end recorded",
    "FollowerLeoSeen": "a leader's view of a follower's log end is not past it while the follower keeps the broker "
                       "epoch and leader epoch it fetched with",
    "CommittedOnMembers": "every ISR (KIP-966: and ELR) member holds the committed records, unless it lost its "
                          "log in a lossy shutdown and has not registered since",
    "BlankIsRegistered": "a broker awaiting its registration response, or without partition metadata, "
                         "holds the one broker epoch issued past the initial ones",
    "LeaderHoldsOwnEpoch": "a leader holds, at the same offset, every record of its own leader epoch in any log "
                           "or consumed",
    "EpochWriterRead": "the leader a metadata record names has read its leader epoch once any log holds a record "
                       "of that epoch, unless it registered again after that record and has read none since",
    "LeaderEpochStart": "a leader's epoch start is within its log, the records before it of older leader epochs, "
                        "those from it on of its own",
    "EpochStartCoversCommitted": "a leader at the controller's leader epoch has every committed record below its "
                                 "epoch start or its high watermark",
    "RegisteringMetadataOld": "a broker awaiting its registration response has metadata no newer than the "
                              "record its metadata offset names; until it reads a record, none from there on "
                              "names it leader, and neither the current record nor a later one has it in the "
                              "ISR or ELR",
    "OneLeavesAtATime": "between consecutive metadata records at most one broker leaves the ISR, unless the "
                        "record is an AlterPartition's (the previous record's leader epoch, with a leader)",
    "RequestCaughtUp": "a follower a leader's pending AlterPartition adds, in the incarnation it named, has a "
                       "recorded log end at least the leader's epoch start and high watermark",
    "LeaverFencedOrStopped": "without leader shrinks, a broker that left the ISR between two metadata records is "
                             "fenced, has stopped or registered again, or a fencing happened",
    "RequestKeepsIsr": "without leader shrinks, a leader's AlterPartition proposes every member of its ISR",
    "FencedNeverMember": "a running broker fenced in its first incarnation with no fencing so far is in no "
                         "metadata record's ISR or ELR",
    "NamedLeaderLeads": "a running broker whose partition metadata names it leader is in the leader role",
    "ReadNotOlder": "a broker with partition metadata is at least at the partition and leader epoch of the last "
                    "record it read (not while awaiting its registration response); a running broker that "
                    "registered again has read one since",
    "IsrLossesCounted": "without leader shrinks, the ISR losses along the metadata log are no more than the "
                        "fencings and shutdowns so far (bounded metadata log only)",
    "RegisteredAgainLeft": "a broker the controller holds at a new broker epoch is outside the ISR and the ELR "
                           "of some metadata record",
    "ElrOnlyUnderMinIsr": "a metadata record whose ISR has min.insync.replicas members has an empty ELR (KIP-966)",
    "OneEpochPerValue": "a value sits at one offset with one leader epoch in every log and in the consumed records",
    **history_module.HISTORY_MEANING,
}

# Proved together (with MetadataLogMatching as the target) on kraft-kip966 at K11-fixed's bounds,
# unbounded logs and metadata log (docs/kraft.md#prove-and-the-familys-lemmas).
STRUCTURAL_LEMMAS = (
    "UnsentNowhere", "StoppedBrokerIdle", "LossyStopEmptiesLog", "UnfencedIsRegistered", "LeaderRoleShape",
    "FollowerRoleShape", "OnlyFollowersFetch", "RequestNamesSender", "HwWithinTrueHw", "IsrUnfenced",
    "IsrElrDisjoint", "LeaderUnfenced", "LeaderInIsr", "RunningHasEpoch", "NonLeaderBlank", "MetadataOrdered",
    "SeenWithEpoch", "OneEpochPerValue", "EpochOneLeader", "EpochsIssued", "FreshRegistration",
)

# Facts about the metadata log's history (what an election and an AlterPartition may append) and
# the broker epochs an AlterPartition names, proved with STRUCTURAL_LEMMAS at the same bounds,
# unbounded; the start of ZombieOutOfIsr's proof (docs/kraft.md#prove-and-the-familys-lemmas).
METADATA_LEMMAS = (
    "NewEpochNewLeader", "LeaderChangeDropsLeader", "ElectionAddsOnlyLeader", "NoLeaderNoIsr", "RequestMembersKnown",
    "UnfetchedNotSeen", "RunningEpochIsControllers",
)
# What the controller's records and a leader's own state allow (elections from the ISR and ELR, the
# ELR from the ISR, the maximal ISR, the broker epochs an AlterPartition names), proved unbounded
# with the two sets above at the same bounds, 40 in all (docs/kraft.md, "Toward LeaderCompleteness").
HISTORY_LEMMAS = (
    "ElrFromIsr", "ElectedFromMembers", "OutsideElectionAlone", "StartingLostLog", "SeenEpochNotNewer",
    "LeaderMaximalIsr", "RequestEpochSeen", "FirstRecordInitial", "OneRegistration", "SeenEpochIsFollowers",
    "RecordsIsrElrDisjoint", "BlankUntilRead",
)
# Inductive with the sets above and each other in the bounded encoding at K11-fixed's bounds (each
# consecution query 0.01-4.2 s, 44 s CPU for all 57; docs/kraft.md, "Toward LeaderCompleteness"); unbounded, the queries
# for MetadataIsARecord and CurrentMetadataMatches did not answer in 300 and 200 s.
BOUNDED_INDUCTIVE_LEMMAS = (
    "MetadataIsARecord", "UnreadMemberAlone", "ReadOwnRecord", "FollowerUnreadNotOlder", "SeenNotZombie",
    "ZombieOutOfIsr", "AddedMemberReadEpoch", "SeenAtLeaderEpoch", "FollowerPrefix", "FollowerLeoSeen",
    "UncleanRegisteredOut", "StaleSeenNotMember", "CurrentMetadataMatches", "LogEpochsIssued", "LeaderMetadataRecorded",
    "LogNotAhead", "ProposerReadBefore",
)
# Inductive with the 57 above and each other in the bounded encoding at K11-fixed's bounds, 72 in all, and true
# in all 973,728 reachable states there (BFS): who writes a leader epoch's records, what a pending AlterPartition
# adds, how brokers leave the ISR and come back after registering again (docs/kraft.md, "Toward
# LeaderCompleteness"). IsrLossesCounted sums over the metadata log, so it says something only where the log is
# bounded (the bounded encoding, explicit states); unbounded it is true by definition.
EPOCH_WRITER_LEMMAS = (
    "BlankIsRegistered", "LeaderHoldsOwnEpoch", "EpochWriterRead", "LeaderEpochStart", "RegisteringMetadataOld",
    "OneLeavesAtATime", "RequestCaughtUp", "LeaverFencedOrStopped", "RequestKeepsIsr", "FencedNeverMember",
    "NamedLeaderLeads", "ReadNotOlder", "IsrLossesCounted", "RegisteredAgainLeft", "ElrOnlyUnderMinIsr",
)
# True in every reachable state at K11-fixed's bounds (BFS); inductive there together with the epoch-history sets
# through epoch-history-3-2 and the other candidate sets, which prove LeaderCompleteness (docs/kraft.md).
LEADER_COMPLETENESS_CANDIDATES = ("HwBoundCovered", "CommittedOnMembers", "EpochStartCoversCommitted")
# Over the history kept in the symbolic state only (history_lemmas.py; docs/kraft.md, "History kept in the
# symbolic state"): inductive with the 72 above in the bounded encoding at K11-fixed's bounds.
EPOCH_HISTORY_LEMMAS = history_module.EPOCH_HISTORY_LEMMAS
EPOCH_HISTORY_CANDIDATES = history_module.EPOCH_HISTORY_CANDIDATES
# With the commit's leader epoch (h.hwe): inductive with the 84, 94 in all (history_lemmas.py).
EPOCH_HISTORY_2_LEMMAS = history_module.EPOCH_HISTORY_2_LEMMAS
EPOCH_HISTORY_2_CANDIDATES = history_module.EPOCH_HISTORY_2_CANDIDATES
# Where each broker's HW last grew (h.hwat) and what a follower that lost records keeps: inductive with the 94,
# 99 in all (history_lemmas_3.py; docs/kraft.md, "The `epoch-history-3` sets").
EPOCH_HISTORY_3_LEMMAS = history_lemmas_3.EPOCH_HISTORY_3_LEMMAS
# The seven that, with the 99 and the candidates above, make LeaderCompleteness inductive (history_lemmas_3.py).
EPOCH_HISTORY_3_LEMMAS_2 = history_lemmas_3.EPOCH_HISTORY_3_LEMMAS_2
