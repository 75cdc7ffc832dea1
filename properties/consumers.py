"""What consumers are promised (K12), as properties of the model with ``consumer_reads`` on.

The *committed log* is the log of the partition's established leader: the quorum leader once it
has adopted the quorum's current leader epoch (as in ``AckedRecordNotLost``); its records below its
HW are committed, and no clean step of the protocol removes a record from it while it leads. A new
leader's HW may lag its log (it learns the old HW from its followers), so the property compares
served records with the established leader's *log*, not only below its HW: a served record at
offset o must be there at o, because the HW will pass o without it being rewritten, and anything
else at o means the record a consumer read has disappeared.

- ``ConsistentRead`` (always; Vanlightly's ConsistentRead, per offset): every record a consumer
  was served is at its offset in the committed log, and no two consumers were served different
  records at one offset. No claim while no leader is established (nobody serves writes then).
- ``ReadBelowHighWatermark`` (transition): a ``ConsumerFetch`` step serves only a record the serving
  replica holds at that offset, and only below that replica's own HW (KIP-392: a follower serves
  up to its own HW, which lags the leader's).
- ``LeaderHighWatermarkMonotone`` (transition, opt-in: ``--invariant LeaderHighWatermarkMonotone``,
  selectable when consumers are on; it reads only classic fields): a replica that presumes
  leadership in the same epoch before and after a step, and whose HW had reached the start of that
  epoch (the first offset holding a record of the epoch, or its log end), does not lower its HW.
  A follower's HW is not asserted monotone: it may legitimately go backwards (it is capped at the
  truncation point, and a new follower takes the leader's lagging HW).
- ``RecordConsumed``, ``FollowerCanServe`` (sometimes): a consumer was served a record; a follower
  (a replica following a leader) has HW > 0, so with KIP-392 it can serve a read.
- ``AckedRecordSurvives`` (always, with acks): every acknowledged record is in some replica's log,
  running or stopped (Vanlightly's NoCommittedRecordLostGlobally for acknowledged records). The rack
  scenarios use it: after an AZ failure under naive placement no replica holds it at all.
"""

from __future__ import annotations

from isrcheck.explorer.contract import Property

from .durability import _ext
from .tables import Tables


def _served(t: Tables, name: str):
    return _ext(t, name, "served", "consumer_reads='leader' or 'any'").served


def consistent_read(t: Tables) -> Property:
    EPOCH, LEADER = t.layout.EPOCH, t.layout.LEADER
    served_i = _served(t, "ConsistentRead")
    size = t.config.log_size
    conflict = t.fields.served_conflict
    ql_i, rq_i = t.layout.q_leader, t.layout.requests_i
    base = t.layout.base
    records, epochs = t.logs.records, t.logs.epochs
    # ids_at[code] = (record id + 1 at each offset, 0 beyond the log end)
    ids_at = [None if recs is None else tuple(recs[o] // epochs + 1 if o < len(recs) else 0 for o in range(size))
              for recs in records]
    slots = tuple(range(served_i, served_i + size))

    def failures(s: tuple):
        served = s[served_i:served_i + size]
        if not any(served):
            return
        for off, v in enumerate(served):
            if v == conflict:
                yield off, "two consumers were served different records at this offset"
        leader = s[ql_i]
        if leader < 0:
            return
        b = base[leader]
        if s[b + LEADER] != leader or s[b + EPOCH] != len(s[rq_i]) - 1:
            return
        held = ids_at[s[b]]
        for off, v in enumerate(served):
            if v and v != conflict and held[off] != v:
                what = f"has record {held[off] - 1}" if held[off] else "has no record"
                yield off, (f"a consumer was served record {v - 1}, but the established leader {leader + 1} "
                            f"(epoch {s[b + EPOCH]}) {what} there")

    def holds(s: tuple) -> bool:
        for i in slots:
            if s[i]:
                break
        else:
            return True
        for _ in failures(s):
            return False
        return True

    def describe(s: tuple) -> str:
        return "; ".join(f"offset {off}: {why}" for off, why in failures(s))

    return Property.always(
        "ConsistentRead",
        holds,
        "every record a consumer was served stays at its offset in the committed log (the established leader's)",
        describe,
    )


def read_below_high_watermark(t: Tables) -> Property:
    HW = t.layout.HW
    _served(t, "ReadBelowHighWatermark")
    base = t.layout.base
    records, epochs = t.logs.records, t.logs.epochs
    ConsumerFetch = t.actions.kinds.ConsumerFetch

    def problem(s: tuple, action: object) -> str:
        if type(action) is not ConsumerFetch:
            return ""
        b = base[action.replica - 1]
        hw = s[b + HW]
        if action.offset >= hw:
            return f"replica {action.replica} served offset {action.offset} at or above its high watermark {hw}"
        recs = records[s[b]]
        if recs[action.offset] // epochs != action.record_id:
            return (f"replica {action.replica} served record {action.record_id}, "
                    f"which it does not hold at offset {action.offset}")
        return ""

    return Property.transition(
        "ReadBelowHighWatermark",
        lambda s, a, nxt: not problem(s, a),
        "a consumer is served only a record the serving replica holds below its own high watermark",
        lambda s, a, nxt: problem(s, a),
    )


def leader_high_watermark_monotone(t: Tables) -> Property:
    HW, EPOCH, LEADER = t.layout.HW, t.layout.EPOCH, t.layout.LEADER
    length, epoch_at = t.logs.length, t.logs.epoch_at
    blocks = tuple((r, t.layout.base[r]) for r in t.layout.replicas)

    def epoch_start(log: int, epoch: int) -> int:
        eps = epoch_at[log]
        return next((o for o, e in enumerate(eps) if e >= epoch), length[log])

    def lowered(s: tuple, nxt: tuple):
        for r, b in blocks:
            if s[b + LEADER] != r or nxt[b + LEADER] != r or s[b + EPOCH] != nxt[b + EPOCH]:
                continue
            hw = s[b + HW]
            if nxt[b + HW] < hw and hw >= epoch_start(s[b], s[b + EPOCH]):
                yield r, hw, nxt[b + HW]

    def holds(s: tuple, action: object, nxt: tuple) -> bool:
        for _ in lowered(s, nxt):
            return False
        return True

    def describe(s: tuple, action: object, nxt: tuple) -> str:
        return "; ".join(f"leader {r + 1} lowered its high watermark from {a} to {b} "
                         f"within epoch {s[t.layout.base[r] + EPOCH]}" for r, a, b in lowered(s, nxt))

    return Property.transition(
        "LeaderHighWatermarkMonotone",
        holds,
        "a leader's HW never goes backwards within its epoch once it has reached the epoch's start",
        describe,
        default=False,
    )


def record_consumed(t: Tables) -> Property:
    served_i = _served(t, "RecordConsumed")
    size = t.config.log_size
    return Property.sometimes("RecordConsumed", lambda s: any(s[served_i:served_i + size]),
                              "a consumer was served a record")


def follower_can_serve(t: Tables) -> Property:
    HW, LEADER = t.layout.HW, t.layout.LEADER
    _served(t, "FollowerCanServe")
    blocks = tuple((r, t.layout.base[r]) for r in t.layout.replicas)

    def holds(s: tuple) -> bool:
        return any(s[b + LEADER] >= 0 and s[b + LEADER] != r and s[b + HW] > 0 for r, b in blocks)

    return Property.sometimes("FollowerCanServe", holds, "a follower has a high watermark above 0 (KIP-392 reads)")


def acked_record_survives(t: Tables) -> Property:
    acked_i = _ext(t, "AckedRecordSurvives", "acked", "acks='1' or acks='all'").acked
    ids = t.logs.id_masks
    bases = t.layout.base

    def missing(s: tuple) -> int:
        held = 0
        for b in bases:
            held |= ids[s[b]]
        return s[acked_i] & ~held

    def describe(s: tuple) -> str:
        gone = missing(s)
        lost = [i for i in range(gone.bit_length()) if gone >> i & 1]
        return f"acknowledged record(s) {', '.join(map(str, lost))} are in no replica's log, running or stopped"

    return Property.always(
        "AckedRecordSurvives",
        lambda s: not missing(s),
        "every acknowledged record is in some replica's log (no committed record lost globally)",
        describe,
    )
