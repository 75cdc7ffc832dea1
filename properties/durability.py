"""What users are promised, as properties of the durability model (``model.durability``).

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

from explorer.contract import Property
from model.state import EPOCH, HW, LEADER, Q_ISR, Q_LEADER, REQUESTS
from model.tables import ModelTables

from . import typeok


def _ext(t: ModelTables, name: str, field: str, needs: str):
    ext = getattr(t, "ext", None)
    if ext is None or getattr(ext, field) < 0:
        raise ValueError(f"property {name} needs {needs}: add that model option or drop the property")
    return ext


def _record_ids(t: ModelTables) -> list[int]:
    logs = t.logs
    ids = [0] * logs.size
    for code in range(logs.size):
        recs = logs.records[code]
        if recs is not None:
            for rec in recs:
                ids[code] |= 1 << logs.record_id(rec)
    return ids


def acked_record_not_lost(t: ModelTables) -> Property:
    ext = _ext(t, "AckedRecordNotLost", "acked", "acks='1' or acks='all'")
    acked_i = ext.acked
    g = t.layout.g
    ql_i, rq_i = g + Q_LEADER, g + REQUESTS
    base = t.layout.base
    ids = _record_ids(t)

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


def log_matching(t: ModelTables) -> Property:
    common = t.logs.common_prefix
    size = t.logs.size
    memo: dict[int, int] = {}
    base = t.layout.base
    n = t.layout.n
    pairs = tuple((a, b) for a in range(n) for b in range(a + 1, n))

    def prefix(x: int, y: int) -> int:
        key = x * size + y
        got = memo.get(key)
        if got is None:
            got = memo[key] = common(x, y)
        return got

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


def record_acknowledged(t: ModelTables) -> Property:
    acked_i = _ext(t, "RecordAcknowledged", "acked", "acks other than 'none'").acked
    return Property.sometimes(
        "RecordAcknowledged", lambda s: s[acked_i] != 0, "a producer received an acknowledgement"
    )


def broker_stopped_and_back(t: ModelTables) -> Property:
    ext = _ext(t, "BrokerStoppedAndBack", "dead", "max_crashes >= 1")
    dead_i, crashes_i = ext.dead, ext.crashes
    az_i = ext.az_failed  # model.consumers: availability-zone failures are stops too
    qi = t.layout.g + Q_ISR
    full = t.layout.all_mask

    def holds(s: tuple) -> bool:
        return (s[crashes_i] > 0 or (az_i >= 0 and s[az_i] > 0)) and s[dead_i] == 0 and s[qi] == full

    return Property.sometimes(
        "BrokerStoppedAndBack",
        holds,
        "after a stop every broker runs again and the quorum ISR is whole again",
    )


def type_ok(t: ModelTables) -> Property:
    """TypeOk of ``properties.typeok`` on the classic fields, plus the extension fields."""
    classic = typeok.type_ok(t)
    ext = getattr(t, "ext", None)
    if ext is None:
        return classic
    start, end = ext.start, ext.length
    n = t.layout.n
    all_mask = t.layout.all_mask
    max_crashes = t.options.max_crashes
    log_size = t.config.log_size
    length = t.logs.length
    all_records = (1 << t.config.max_records) - 1
    base = t.layout.base

    def problems(s: tuple) -> list[str]:
        if type(s) is not tuple or len(s) != end:
            return [f"state is not a tuple of {end} fields"]
        out = []
        if not classic.predicate(s[:start]):
            out.append(classic.describe(s[:start]))
        if ext.dead >= 0:
            if not (type(s[ext.dead]) is int and 0 <= s[ext.dead] <= all_mask):
                out.append(f"stopped brokers mask {s[ext.dead]!r}")
            if not (type(s[ext.crashes]) is int and 0 <= s[ext.crashes] <= max(max_crashes, 0)):
                out.append(f"stop count {s[ext.crashes]!r}")
        if ext.flushed >= 0:
            for r in range(n):
                f = s[ext.flushed + r]
                well_formed = classic.predicate(s[:start])
                if not (type(f) is int and 0 <= f <= log_size) or (well_formed and f > length[s[base[r]]]):
                    out.append(f"replica {r + 1} flushed offset {f!r} beyond its log end")
        if ext.acked >= 0 and not (type(s[ext.acked]) is int and 0 <= s[ext.acked] <= all_records):
            out.append(f"acked records mask {s[ext.acked]!r}")
        if ext.served >= 0:  # model.consumers: 0 nothing, record id + 1, or max_records + 1 (CONFLICT)
            for off in range(ext.log_size):
                v = s[ext.served + off]
                if not (type(v) is int and 0 <= v <= t.config.max_records + 1):
                    out.append(f"served value {v!r} at offset {off}")
        if ext.az_failed >= 0:
            v = s[ext.az_failed]
            if not (type(v) is int and 0 <= v <= t.consumers.max_az_failures):
                out.append(f"AZ failure count {v!r}")
        return out

    return Property.always(
        "TypeOk",
        lambda s: not problems(s),
        "every field of the state is well formed (classic TypeOk plus the durability fields)",
        lambda s: "; ".join(problems(s)),
    )
