"""Candidate lemmas over ``KafkaVars`` for proofs by induction (``isrcheck prove``).

``type_ok`` is what every reachable state satisfies by construction of the variables (ranges);
``candidate_lemmas`` are the built-in templates Houdini starts from, each a protocol fact a Kafka
engineer would state (docs/proofs.md explains them). None is assumed: each is kept only if it is
inductive relative to the others (Houdini drops the rest).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .properties import agree_below
from .vars import UNBOUNDED_CONFLICT, KafkaVars, every_index

Lemma = Callable[[Any, KafkaVars], Any]


def type_ok(o: Any, v: KafkaVars, n: int, opt: Any = None, log_size: int | None = None,
            epochs: int | None = None) -> Any:
    """Ranges: offsets, HWs and counters are >= 0; epochs are -1 (Nil) or sent; leaders are -1 or
    a replica; every record was written (id below ``nrid``, epoch sent). A replica without an epoch
    has no leader and no records, and one with an epoch has a leader, unless brokers stop
    (``opt.stops``): a stopped broker keeps its epoch and leads nothing, and a restarted one takes
    the epoch below the current request's, records kept; then only "a leader comes with an epoch".
    The stop and zone-failure counts stay within their limits, recovery points are >= 0, and only
    written records are acknowledged or served."""
    stops = opt is not None and opt.stops
    parts = [v.nrid >= 0, v.nreq >= 0, v.ql >= -1, v.ql < n, o.implies(v.nreq == 0, v.ql == -1)]
    for i in range(n):
        parts += [v.length[i] >= 0, v.hw[i] >= 0, v.ep[i] >= -1, v.ep[i] < v.nreq, v.ld[i] >= -1, v.ld[i] < n]
        if stops:
            parts.append(o.implies(v.ld[i] >= 0, v.ep[i] >= 0))
        else:
            parts += [o.implies(v.ep[i] == -1, o.and_(v.ld[i] == -1, v.length[i] == 0)),
                      o.implies(v.ep[i] >= 0, v.ld[i] >= 0)]
        parts.append(o.forall(0, v.length[i], lambda k, i=i: o.and_(
            0 <= o.sel(v.rid[i], k), o.sel(v.rid[i], k) < v.nrid,
            0 <= o.sel(v.rep[i], k), o.sel(v.rep[i], k) < v.nreq), log_size))
    parts.append(o.forall(0, v.nreq, lambda e: o.and_(o.sel(v.req_ld, e) >= -1, o.sel(v.req_ld, e) < n), epochs))
    if stops:
        parts += [0 <= v.crashes, v.crashes <= opt.max_crashes]
    if opt is not None and opt.max_az_failures:
        parts += [0 <= v.az_failures, v.az_failures <= opt.max_az_failures]
    parts += [x >= 0 for x in v.flushed]
    # Without bounds (arrays): only written records are acknowledged or served (ids below nrid).
    if not isinstance(v.acked, list):
        parts.append(every_index(o, v.acked, lambda x, a: o.implies(a, o.and_(0 <= x, x < v.nrid))))
    if not isinstance(v.served, list):
        # Over the offsets below nrid only (a log holds fewer records than were written, so every
        # served offset is below it): over the whole domain z3's search for a CTI ran out of time.
        in_range = lambda k: o.or_(o.sel(v.served, k) == UNBOUNDED_CONFLICT,  # noqa: E731
                                   o.and_(0 <= o.sel(v.served, k), o.sel(v.served, k) <= v.nrid))
        parts.append(o.forall(0, v.nrid, in_range) if not isinstance(v.served, tuple)
                     else o.and_(*(in_range(k) for k in range(len(v.served)))))
        # A consumer reads the record at each offset below the serving replica's HW: the explicit step
        # needs the HW within the log (true in every reachable state of every generation; checked),
        # and a CTI's served offsets decoded (below the longest log or recovery point) are below nrid.
        parts += [o.and_(v.hw[i] <= v.length[i], v.length[i] <= v.nrid) for i in range(n)]
        parts += [x <= v.length[i] for i, x in enumerate(v.flushed)]
    return o.and_(*parts)


def _per_replica(n: int, fn: Callable[[Any, KafkaVars, int], Any]) -> Lemma:
    return lambda o, v: o.and_(*(fn(o, v, i) for i in range(n)))


def _per_pair(n: int, fn: Callable[[Any, KafkaVars, int, int], Any]) -> Lemma:
    return lambda o, v: o.and_(*(fn(o, v, i, j) for i in range(n) for j in range(n)))


def candidate_lemmas(n: int, opt: Any = None, log_size: int | None = None,
                     epochs: int | None = None) -> dict[str, Lemma]:
    """The templates for ``n`` replicas; with the options ``opt`` (``StepOptions``), the forms that
    hold with them (a stopped or restarted broker has an epoch and no leader) and the options' own."""
    stops = opt is not None and opt.stops
    L, E = log_size, epochs  # the bounded encoding's array sizes (offsets, requests); None unbounded

    def epochs_sorted(o: Any, v: KafkaVars, i: int) -> Any:
        return o.forall(1, v.length[i], lambda k: o.sel(v.rep[i], k - 1) <= o.sel(v.rep[i], k), L)

    def records_within_epoch(o: Any, v: KafkaVars, i: int) -> Any:
        return o.forall(0, v.length[i], lambda k: o.sel(v.rep[i], k) <= v.ep[i], L)

    def hw_within_log(o: Any, v: KafkaVars, i: int) -> Any:
        return v.hw[i] <= v.length[i]

    def leader_named_by_its_epoch(o: Any, v: KafkaVars, i: int) -> Any:
        if stops:  # a stopped broker leads nothing at its epoch: only a broker with a leader
            return o.implies(v.ld[i] >= 0, o.sel(v.req_ld, v.ep[i]) == v.ld[i])
        return o.implies(v.ep[i] >= 0, o.sel(v.req_ld, v.ep[i]) == v.ld[i])

    def quorum_is_last_request(o: Any, v: KafkaVars) -> Any:
        return o.implies(v.nreq > 0, o.sel(v.req_ld, v.nreq - 1) == v.ql)

    def true_leader_isr_is_quorum_isr(o: Any, v: KafkaVars, i: int) -> Any:
        true_leader = o.and_(v.ld[i] == i, v.ep[i] == v.nreq - 1)
        return o.implies(true_leader, o.and_(*(v.isr[i][j] == v.qisr[j] for j in range(n))))

    def quorum_isr_is_last_request_until_adopted(o: Any, v: KafkaVars) -> Any:
        """Until the leader named by the newest request adopts it, only that request wrote the
        quorum ISR (a leader changes the ISR only once it leads at the newest epoch)."""
        adopted = o.or_(*(o.and_(v.ld[i] == i, v.ep[i] == v.nreq - 1) for i in range(n)))
        same = o.and_(*(v.qisr[j] == o.sel(v.req_isr[j], v.nreq - 1) for j in range(n)))
        return o.implies(o.and_(v.nreq > 0, o.not_(adopted)), same)

    def leader_in_quorum_isr(o: Any, v: KafkaVars) -> Any:
        return o.and_(*(o.implies(v.ql == r, v.qisr[r]) for r in range(n)))

    def log_matching(o: Any, v: KafkaVars, i: int, j: int) -> Any:
        same_epoch_at = lambda k: o.and_(k < v.length[i], k < v.length[j],  # noqa: E731
                                         o.sel(v.rep[i], k) == o.sel(v.rep[j], k))
        return o.forall(0, v.length[i], lambda k: o.implies(same_epoch_at(k), agree_below(o, v, i, j, k + 1, L)), L)

    def unique_record_ids(o: Any, v: KafkaVars, i: int, j: int) -> Any:
        return o.forall(0, v.length[i], lambda k: o.forall(0, v.length[j], lambda m: o.implies(
            o.sel(v.rid[i], k) == o.sel(v.rid[j], m), o.and_(k == m, o.sel(v.rep[i], k) == o.sel(v.rep[j], m))), L), L)

    def committed_on_quorum_isr(o: Any, v: KafkaVars, i: int, j: int) -> Any:
        """Every replica's HW (not only a leader's) covers records on every quorum-ISR member."""
        return o.implies(o.and_(v.hw[i] > 0, v.qisr[j]), agree_below(o, v, i, j, v.hw[i], L))

    def follower_epoch_at_most_leader(o: Any, v: KafkaVars, i: int, j: int) -> Any:
        return o.implies(o.and_(v.ld[i] == j, i != j), v.ep[i] <= v.ep[j])

    def request_leader_in_request_isr(o: Any, v: KafkaVars) -> Any:
        return o.forall(0, v.nreq, lambda e: o.and_(*(
            o.implies(o.sel(v.req_ld, e) == r, o.sel(v.req_isr[r], e)) for r in range(n))), E)

    def leader_completeness(o: Any, v: KafkaVars, i: int, j: int) -> Any:
        later_leader = o.and_(v.ld[j] == j, v.ep[j] > v.ep[i], v.hw[i] > 0)
        return o.implies(later_leader, agree_below(o, v, i, j, v.hw[i], L))

    def follower_prefix_of_leader(o: Any, v: KafkaVars, f: int, lead: int) -> Any:
        same_epoch = o.and_(f != lead, v.ld[f] == lead, v.ld[lead] == lead, v.ep[f] == v.ep[lead])
        return o.implies(same_epoch, agree_below(o, v, f, lead, v.length[f], L))

    def epoch_leader_has_its_records(o: Any, v: KafkaVars, i: int, lead: int) -> Any:
        """While a broker leads at epoch e, it holds every record of epoch e, at the same offset."""
        return o.forall(0, v.length[i], lambda k: o.implies(
            o.and_(v.ld[lead] == lead, v.ep[lead] == o.sel(v.rep[i], k)),
            o.and_(k < v.length[lead], o.sel(v.rid[lead], k) == o.sel(v.rid[i], k),
                   o.sel(v.rep[lead], k) == o.sel(v.rep[i], k))), L)

    def cached_isr_has_its_leader(o: Any, v: KafkaVars, i: int) -> Any:
        return o.and_(*(o.implies(v.ld[i] == lead, v.isr[i][lead]) for lead in range(n)))

    def covers_later_isrs_unless_fenced(o: Any, v: KafkaVars, member: Callable[[Any], Any], epoch: Any) -> Any:
        """The quorum ISR and the ISR of every request after ``epoch`` are within ``member``'s set,
        or a member of that set is on an epoch after ``epoch``."""
        covers = o.and_(*(o.implies(v.qisr[j], member(j)) for j in range(n)))
        later = o.forall(epoch + 1, v.nreq, lambda e: o.and_(*(
            o.implies(o.sel(v.req_isr[j], e), member(j)) for j in range(n))), E)
        return o.or_(o.and_(covers, later), *(o.and_(member(r), v.ep[r] > epoch) for r in range(n)))

    def presumed_leader_isr_covers_later_isrs(o: Any, v: KafkaVars, lead: int) -> Any:
        """A presumed leader's cached ISR contains the quorum ISR and every later request's ISR
        unless one of its members has moved to a newer epoch: every later leader was elected from
        that ISR, and only a later leader that adopted its epoch may expand the quorum ISR."""
        return o.implies(v.ld[lead] == lead,
                         covers_later_isrs_unless_fenced(o, v, lambda j: v.isr[lead][j], v.ep[lead]))

    def request_isr_covers_later_isrs(o: Any, v: KafkaVars) -> Any:
        """Until the leader a LeaderAndIsr request names adopts it, the quorum ISR and every later
        request's ISR stay within the request's ISR unless a member of it has moved past its epoch."""
        def at(e: Any) -> Any:
            not_adopted = o.and_(*(o.implies(o.sel(v.req_ld, e) == r, v.ep[r] < e) for r in range(n)))
            return o.implies(not_adopted, covers_later_isrs_unless_fenced(
                o, v, lambda j: o.sel(v.req_isr[j], e), e))
        return o.forall(0, v.nreq, at, E)

    def records_of_adopted_epochs(o: Any, v: KafkaVars, i: int) -> Any:
        """A record of epoch e exists only once the leader request e names has adopted epoch e
        (only that leader writes records of epoch e, and epochs never go back)."""
        return o.forall(0, v.length[i], lambda k: o.and_(*(
            o.implies(o.sel(v.req_ld, o.sel(v.rep[i], k)) == r, v.ep[r] >= o.sel(v.rep[i], k)) for r in range(n))), L)

    def committed_on_later_request_isr(o: Any, v: KafkaVars, i: int, j: int) -> Any:
        """Every member of the ISR of a request newer than broker i's epoch holds i's records below
        its HW (the controller only names ISRs taken from the quorum ISR, which holds them)."""
        return o.implies(v.hw[i] > 0, o.forall(v.ep[i] + 1, v.nreq, lambda e: o.implies(
            o.sel(v.req_isr[j], e), agree_below(o, v, i, j, v.hw[i], L)), E))

    def newest_leader_hw_covers_its_epoch(o: Any, v: KafkaVars, lead: int, i: int) -> Any:
        """A broker leading at the newest epoch e: a record of epoch e below any broker's HW is
        below the leader's HW (only the leader of e raises a HW over a record of e, and a
        follower's HW is never above its leader's)."""
        newest = o.and_(v.ld[lead] == lead, v.ep[lead] == v.nreq - 1)
        return o.implies(newest, o.forall(0, v.hw[i], lambda k: o.implies(
            o.sel(v.rep[i], k) == v.ep[lead], k < v.hw[lead]), L))

    def committed_on_request_isrs_after_lagging_member(o: Any, v: KafkaVars, i: int, j: int) -> Any:
        """Every member of the ISR of request e holds broker i's records below i's HW when e is
        newer than i's epoch, or when a broker on an epoch older than e is in the quorum ISR, in
        the ISR of a request newer than i's epoch, or in i's cached ISR while i leads. Such a
        lagging member sat in the cached ISR of every leader since its epoch (a leader admits
        only brokers on its own epoch), on another epoch, so none of them could raise its HW:
        i's HW covers only records committed before, which every later ISR inherited."""
        def member_after_i(r: int) -> Any:
            # in the quorum ISR, in a request's ISR after i's epoch, or in i's cached ISR while i leads
            return o.or_(v.qisr[r], o.exists(v.ep[i] + 1, v.nreq, lambda e2: o.sel(v.req_isr[r], e2), E),
                         o.and_(v.ld[i] == i, v.isr[i][r]))

        def at(e: Any) -> Any:
            late = o.or_(e > v.ep[i], *(o.and_(member_after_i(r), v.ep[r] < e) for r in range(n)))
            return o.implies(o.and_(o.sel(v.req_isr[j], e), late), agree_below(o, v, i, j, v.hw[i], L))
        return o.implies(v.hw[i] > 0, o.forall(0, v.nreq, at, E))

    lemmas = {
        "RecordEpochsSorted": _per_replica(n, epochs_sorted),
        "RecordsWithinReplicaEpoch": _per_replica(n, records_within_epoch),
        "HighWatermarkWithinLog": _per_replica(n, hw_within_log),
        "LeaderNamedByItsEpoch": _per_replica(n, leader_named_by_its_epoch),
        "QuorumIsLastRequest": quorum_is_last_request,
        "TrueLeaderIsrIsQuorumIsr": _per_replica(n, true_leader_isr_is_quorum_isr),
        "QuorumIsrIsLastRequestUntilAdopted": quorum_isr_is_last_request_until_adopted,
        "LeaderInQuorumIsr": leader_in_quorum_isr,
        "LogMatching": _per_pair(n, log_matching),
        "UniqueRecordIds": _per_pair(n, unique_record_ids),
        "CommittedOnQuorumIsr": _per_pair(n, committed_on_quorum_isr),
        "FollowerEpochAtMostLeader": _per_pair(n, follower_epoch_at_most_leader),
        "RequestLeaderInRequestIsr": request_leader_in_request_isr,
        "LeaderCompleteness": _per_pair(n, leader_completeness),
        "FollowerPrefixOfLeader": _per_pair(n, follower_prefix_of_leader),
        "EpochLeaderHasItsRecords": _per_pair(n, epoch_leader_has_its_records),
        "CachedIsrHasItsLeader": _per_replica(n, cached_isr_has_its_leader),
        "RequestIsrCoversLaterIsrs": request_isr_covers_later_isrs,
        "PresumedLeaderIsrCoversLaterIsrs": _per_replica(n, presumed_leader_isr_covers_later_isrs),
        "RecordsOfAdoptedEpochs": _per_replica(n, records_of_adopted_epochs),
        "CommittedOnLaterRequestIsr": _per_pair(n, committed_on_later_request_isr),
        "NewestLeaderHwCoversItsEpoch": _per_pair(n, newest_leader_hw_covers_its_epoch),
        "CommittedOnRequestIsrsAfterLaggingMember": _per_pair(n, committed_on_request_isrs_after_lagging_member),
    }
    if stops:
        lemmas["StoppedBrokerLeadsNothing"] = _per_replica(
            n, lambda o, v, i: o.implies(v.dead[i], v.ld[i] == -1))
    for name, fn in lemmas.items():
        fn.__doc__ = MEANING[name]
    return lemmas


MEANING = {
    "StoppedBrokerLeadsNothing": "a stopped broker follows and leads nothing (its cached leader is None); "
                                 "with broker stops only",
    "RecordEpochsSorted": "in every log, record epochs never decrease with the offset",
    "RecordsWithinReplicaEpoch": "no replica holds a record stamped with a leader epoch newer than its own",
    "HighWatermarkWithinLog": "every replica's HW is at most its log end offset",
    "LeaderNamedByItsEpoch": "the leader a replica believes in is the one the request of its epoch named",
    "QuorumIsLastRequest": "the quorum's leader is the one the newest LeaderAndIsr request named",
    "TrueLeaderIsrIsQuorumIsr": "a replica leading at the newest epoch caches exactly the quorum ISR",
    "QuorumIsrIsLastRequestUntilAdopted":
        "until the newest request's leader adopts it, the quorum ISR is that request's ISR",
    "LeaderInQuorumIsr": "the quorum's leader is in the quorum ISR (LeaderInIsr)",
    "LogMatching": "two logs with the same epoch at an offset hold the same records up to it",
    "UniqueRecordIds": "a record id appears at one offset with one epoch in every log that has it",
    "CommittedOnQuorumIsr": "every replica's records below its HW are on every quorum-ISR member",
    "FollowerEpochAtMostLeader": "a follower's leader epoch is at most the one its leader has",
    "RequestLeaderInRequestIsr": "every LeaderAndIsr request names a leader inside its ISR",
    "LeaderCompleteness": "a replica leading at a later epoch than another holds that one's records below its HW",
    "FollowerPrefixOfLeader": "a follower on its leader's epoch holds a prefix of the leader's log",
    "EpochLeaderHasItsRecords": "while a broker leads at epoch e it holds every record of epoch e, at the same offset",
    "CachedIsrHasItsLeader": "the ISR a broker caches contains the leader it follows (or itself, leading)",
    "RequestIsrCoversLaterIsrs": "until a request's leader adopts it, the quorum ISR and every later request's ISR "
                                 "stay within its ISR unless a member of that ISR has moved to a newer epoch",
    "PresumedLeaderIsrCoversLaterIsrs": "a presumed leader's cached ISR contains the quorum ISR and every later "
                                        "request's ISR unless a member of it has moved to a newer epoch (which "
                                        "freezes the leader's HW)",
    "RecordsOfAdoptedEpochs": "a record of epoch e exists only once the leader request e names has adopted epoch e",
    "CommittedOnLaterRequestIsr": "every member of the ISR of a request newer than a broker's epoch holds that "
                                  "broker's records below its HW",
    "NewestLeaderHwCoversItsEpoch": "a broker leading at the newest epoch e has every record of epoch e that is "
                                    "below some broker's HW below its own HW",
    "CommittedOnRequestIsrsAfterLaggingMember": "every member of the ISR of request e holds a broker's records "
                                                "below its HW when e is newer than the broker's epoch or than the "
                                                "epoch of a member of the quorum ISR, of a later request's ISR or "
                                                "of the broker's cached ISR while it leads",
}


# The lemmas that make StrongIsr and WeakIsr inductive for KIP-320 at 2 replicas (docs/proofs.md),
# in the order they are checked: what the CI proof and bench/bench_symbolic.py pass as --lemma.
ISR_PROOF_LEMMAS = (
    "RecordEpochsSorted", "RecordsWithinReplicaEpoch", "HighWatermarkWithinLog", "LeaderNamedByItsEpoch",
    "QuorumIsLastRequest", "TrueLeaderIsrIsQuorumIsr", "QuorumIsrIsLastRequestUntilAdopted", "LeaderInQuorumIsr",
    "LogMatching", "UniqueRecordIds", "CommittedOnQuorumIsr", "FollowerEpochAtMostLeader",
    "RequestLeaderInRequestIsr", "LeaderCompleteness", "FollowerPrefixOfLeader", "EpochLeaderHasItsRecords",
    "CachedIsrHasItsLeader", "RequestIsrCoversLaterIsrs", "PresumedLeaderIsrCoversLaterIsrs",
    "RecordsOfAdoptedEpochs", "CommittedOnLaterRequestIsr",
)

# At 3 replicas (docs/proofs.md): a third broker's HW, which the 21 do not relate to the leader's,
# is what LeaderExpandIsr and BecomeFollowerAndTruncate must respect. CommittedOnRequestIsrsAfterLaggingMember
# implies CommittedOnLaterRequestIsr, which is left out. Prove StrongIsr with WeakIsr as a second
# target: CommittedOnRequestIsrsAfterLaggingMember needs it (without it, a CTI in docs/proofs.md).
ISR_PROOF_LEMMAS_3 = tuple(name for name in ISR_PROOF_LEMMAS if name != "CommittedOnLaterRequestIsr") + (
    "NewestLeaderHwCoversItsEpoch", "CommittedOnRequestIsrsAfterLaggingMember",
)
