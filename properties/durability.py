"""What users are promised, as properties of the model with its durability options on.

- ``AckedRecordNotLost`` (always): every acknowledged record is in the log of the partition's
  *established* leader: the quorum leader once it has adopted the quorum's current epoch (it
  presumes leadership at ``quorumState.leaderEpoch``). Before a new leader has taken over, nobody
  can read or write, so no claim is made; the moment one serves requests without an acknowledged
  record, the producer's acknowledgement was a lie: consumers will never see it and the offset will
  be reused. With acks=1 the record is acknowledged at the leader's append; with acks=all when the
  HW passes it with at least ``min.insync.replicas`` in the ISR.

  The promise Kafka makes, and the form checked: with acks=all and ``min.insync.replicas = m``, an
  acknowledged record was on at least m replicas, so it survives as long as fewer than m of them
  lose it; in the model: with at most m - 1 lossy stops (``max_crashes = m - 1``), unclean election
  off, and a broker back from a lossy stop not eligible until it has caught up
  (``kip966_unclean_recovery``), ``AckedRecordNotLost`` holds. Without that last rule it fails even
  with m = 2 (the ISR shrinks to the leader alone, which then loses its unflushed suffix and is
  elected again as the last ISR member: the "last replica standing" problem KIP-966 fixes), so the
  checker states the guarantee with the rule that makes it true and shows both.
- ``LogMatching`` (always): any two replicas hold the same record at every offset below both of
  their high watermarks (Vanlightly's LogMatching restricted to what both consider committed;
  KIP-101 scenario 2 breaks it after two lossy crashes). Usable on the classic model too.
- ``RecordAcknowledged`` (sometimes): some record was acknowledged (vacuous with acks=0: fire and
  forget promises nothing).
- ``BrokerStoppedAndBack`` (sometimes): after at least one stop, every broker runs again and the
  quorum ISR holds every replica again (restart, catch-up and ISR expansion all happened).
"""

from __future__ import annotations

from isrcheck.explorer.contract import Property

from . import typeok
from .tables import Tables


def _ext(t: Tables, name: str, field: str, needs: str):
    if getattr(t.fields, field) < 0:
        raise ValueError(f"property {name} needs {needs}: add that model option or drop the property")
    return t.fields


def acked_record_not_lost(t: Tables) -> Property:
    EPOCH, LEADER = t.layout.EPOCH, t.layout.LEADER
    ext = _ext(t, "AckedRecordNotLost", "acked", "acks='1' or acks='all'")
    acked_i = ext.acked
    ql_i, rq_i = t.layout.q_leader, t.layout.requests_i
    base = t.layout.base
    ids = t.logs.id_masks

    def missing(s: tuple) -> int:
        leader = s[ql_i]
        if leader < 0:
            return 0
        b = base[leader]
        if s[b + LEADER] != leader or s[b + EPOCH] != len(s[rq_i]) - 1:
            return 0
        return s[acked_i] & ~ids[s[b]]

    def holds(s: tuple) -> bool:
        return not missing(s)

    def describe(s: tuple) -> str:
        gone = missing(s)
        leader = s[ql_i]
        lost = [i for i in range(gone.bit_length()) if gone >> i & 1]
        return (
            f"leader {leader + 1} (epoch {len(s[rq_i]) - 1}) serves without acknowledged record(s) "
            f"{', '.join(map(str, lost))}"
        )

    return Property.always(
        "AckedRecordNotLost",
        holds,
        "every acknowledged record is in the log of the established leader",
        describe,
    )


def log_matching(t: Tables) -> Property:
    HW = t.layout.HW
    prefixes, size = t.logs.common_prefixes, t.logs.size
    base = t.layout.base
    n = t.layout.n
    pairs = tuple((a, b) for a in range(n) for b in range(a + 1, n))

    def prefix(x: int, y: int) -> int:
        return prefixes[x * size + y]

    def failures(s: tuple):
        for a, b in pairs:
            ba, bb = base[a], base[b]
            hw = s[ba + HW]
            if s[bb + HW] < hw:
                hw = s[bb + HW]
            if hw and prefix(s[ba], s[bb]) < hw:
                yield a, b, hw

    def holds(s: tuple) -> bool:
        for _ in failures(s):
            return False
        return True

    def describe(s: tuple) -> str:
        logs = t.logs
        parts = []
        for a, b, hw in failures(s):
            off = prefix(s[base[a]], s[base[b]])

            def show(r: int, off: int = off) -> str:
                recs = logs.records[s[base[r]]]
                rec = recs[off]
                return f"{r + 1} has record {logs.record_id(rec)} of epoch {logs.record_epoch(rec)}"

            parts.append(f"replicas {a + 1} and {b + 1} (both hw >= {hw}) differ at offset {off}: "
                         f"{show(a)}, {show(b)}")
        return "; ".join(parts)

    return Property.always(
        "LogMatching",
        holds,
        "any two replicas agree on every offset below both their high watermarks",
        describe,
    )


def record_acknowledged(t: Tables) -> Property:
    acked_i = _ext(t, "RecordAcknowledged", "acked", "acks other than 'none'").acked
    return Property.sometimes(
        "RecordAcknowledged", lambda s: s[acked_i] != 0, "a producer received an acknowledgement"
    )


def broker_stopped_and_back(t: Tables) -> Property:
    ext = _ext(t, "BrokerStoppedAndBack", "dead", "max_crashes >= 1")
    dead_i, crashes_i = ext.dead, ext.crashes
    az_i = ext.az_failed  # availability-zone failures are stops too
    qi = t.layout.q_isr
    full = t.layout.all_mask

    def holds(s: tuple) -> bool:
        return (s[crashes_i] > 0 or (az_i >= 0 and s[az_i] > 0)) and s[dead_i] == 0 and s[qi] == full

    return Property.sometimes(
        "BrokerStoppedAndBack",
        holds,
        "after a stop every broker runs again and the quorum ISR is whole again",
    )


def type_ok(t: Tables) -> Property:
    """TypeOk of ``isrcheck.properties.typeok`` on the classic fields, plus every option field of the model
    within its domain (each field's ``high`` in the model's field table); a flushed offset also
    never lies beyond its replica's log end."""
    classic = typeok.type_ok(t)
    fields = t.fields
    slots = [(f.name, f.view, i, f.high(t)) for f, i in fields.slots() if f.high is not None]
    if not slots:
        return classic
    start, end = fields.start, fields.length
    length = t.logs.length
    base = t.layout.base
    flushed = fields.flushed

    def problems(s: tuple) -> list[str]:
        if type(s) is not tuple or len(s) != end:
            return [f"state is not a tuple of {end} fields"]
        out = []
        well_formed = classic.predicate(s[:start])
        if not well_formed:
            out.append(classic.describe(s[:start]))
        for name, view, i, high in slots:
            v = s[i]
            if not (type(v) is int and 0 <= v <= high):
                out.append(f"{view} ({name}) value {v!r} at position {i} outside 0..{high}")
            elif name == "flushed" and well_formed and v > length[s[base[i - flushed]]]:
                out.append(f"replica {i - flushed + 1} flushed offset {v} beyond its log end")
        return out

    return Property.always(
        "TypeOk",
        lambda s: not problems(s),
        "every field of the state is well formed (classic TypeOk plus the durability fields)",
        lambda s: "; ".join(problems(s)),
    )
