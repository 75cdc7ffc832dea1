"""``sometimes`` properties: interesting states a run must reach, or its invariants prove little
(Stateright's pairing of every ``always`` with a ``sometimes``). All are predicates on one state,
so they add no ghost variables and leave distinct-state counts equal to TLC's.

- ``RecordCommitted``: some replica presuming leadership has a high watermark above 0.
- ``NewLeaderElected``: leadership changed hands: a replica presumes leadership at an epoch after
  an earlier LeaderAndIsr request that named a different replica.
- ``TruncationHappened``: a record that was written is now in no replica's log. Only truncation
  removes records, so this witnesses a truncation (one that removed the record everywhere: a lost
  uncommitted record, or in the buggy generations a lost committed one). A step that merely
  shortens one replica's log is not visible in a single state; ``OnlyTruncationShortensLogs`` in
  ``isrcheck.properties.transitions`` checks those steps.
- ``FollowerRejoinedIsr``: a replica is in the quorum ISR although some earlier request's ISR
  lacked it; the controller never adds replicas, so a leader re-admitted it (ISR expansion).
"""

from __future__ import annotations

from isrcheck.explorer.contract import Property

from .tables import Tables


def record_committed(t: Tables) -> Property:
    HW, LEADER = t.layout.HW, t.layout.LEADER
    blocks = tuple((r, t.layout.base[r]) for r in t.layout.replicas)

    def holds(s: tuple) -> bool:
        return any(s[b + LEADER] == r and s[b + HW] > 0 for r, b in blocks)

    return Property.sometimes("RecordCommitted", holds, "a presumed leader's high watermark is above 0")


def new_leader_elected(t: Tables) -> Property:
    EPOCH, LEADER = t.layout.EPOCH, t.layout.LEADER
    n = t.layout.n
    blocks = tuple((r, t.layout.base[r]) for r in t.layout.replicas)
    rq = t.layout.requests_i

    def holds(s: tuple) -> bool:
        reqs = s[rq]
        for r, b in blocks:
            if s[b + LEADER] == r:
                epoch = s[b + EPOCH]
                for code in reqs[:epoch]:
                    earlier = (code >> n) - 1
                    if earlier >= 0 and earlier != r:
                        return True
        return False

    return Property.sometimes(
        "NewLeaderElected", holds, "a replica leads after an earlier request named another leader"
    )


def truncation_happened(t: Tables) -> Property:
    ids = t.logs.id_masks
    bases = t.layout.base
    nr = t.layout.next_record_id

    def holds(s: tuple) -> bool:
        held = 0
        for b in bases:
            held |= ids[s[b]]
        return held != (1 << s[nr]) - 1

    return Property.sometimes("TruncationHappened", holds, "a written record is in no replica's log")


def follower_rejoined_isr(t: Tables) -> Property:
    mask = t.layout.all_mask
    qi = t.layout.q_isr
    rq = t.layout.requests_i

    def holds(s: tuple) -> bool:
        isr = s[qi]
        return any(isr & ~code & mask for code in s[rq])

    return Property.sometimes(
        "FollowerRejoinedIsr",
        holds,
        "a replica left out of an earlier request's ISR is back in the quorum ISR",
    )
