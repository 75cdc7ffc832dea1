"""``TypeOk``: every field of a state is well formed.

The spec's ``TypeOk`` states the types of its variables; TLC cannot evaluate it as written
(docs/variants.md). This is the same statement about the model's encoding
(``isrcheck.model.encoding.state``): each log is a log of at most ``LogSize`` records with ids below
``MaxRecords`` and epochs up to ``MaxLeaderEpoch``; each HW is in ``0..LogSize``; each epoch is
``Nil`` or a valid epoch; each leader ``None`` or a replica; each ISR a set of replicas;
``nextRecordId`` in ``0..MaxRecords``; at most ``MaxLeaderEpoch + 1`` requests, each naming ``None``
or a replica and a set of replicas; the quorum likewise.
"""

from __future__ import annotations

from isrcheck.explorer.contract import Property

from .tables import Tables


def type_ok(t: Tables) -> Property:
    HW, EPOCH, LEADER, ISR = t.layout.HW, t.layout.EPOCH, t.layout.LEADER, t.layout.ISR
    cfg = t.config
    lay = t.layout
    logs = t.logs
    g = lay.g

    def problems(s: object) -> list[str]:
        if not isinstance(s, tuple) or len(s) != lay.length:
            return [f"state is not a tuple of {lay.length} fields"]
        out = []

        def check(ok: bool, what: str) -> None:
            if not ok:
                out.append(what)

        def is_int(v: object) -> bool:
            return type(v) is int

        for r in lay.replicas:
            b = lay.base[r]
            name = f"replica {r + 1}"
            check(logs.is_log(s[b]), f"{name} log code {s[b]!r}")
            check(is_int(s[b + HW]) and 0 <= s[b + HW] <= cfg.log_size, f"{name} hw {s[b + HW]!r}")
            check(is_int(s[b + EPOCH]) and -1 <= s[b + EPOCH] <= cfg.max_leader_epoch, f"{name} epoch")
            check(is_int(s[b + LEADER]) and -1 <= s[b + LEADER] < lay.n, f"{name} leader {s[b + LEADER]!r}")
            check(is_int(s[b + ISR]) and 0 <= s[b + ISR] <= lay.all_mask, f"{name} isr {s[b + ISR]!r}")
            if logs.is_log(s[b]):
                for rec in logs.records[s[b]]:
                    check(logs.record_id(rec) < cfg.max_records, f"{name} record id {logs.record_id(rec)}")
        nr = s[lay.next_record_id]
        check(is_int(nr) and 0 <= nr <= cfg.max_records, f"nextRecordId {nr!r}")
        check(is_int(s[lay.q_leader]) and -1 <= s[lay.q_leader] < lay.n, f"quorum leader {s[lay.q_leader]!r}")
        check(is_int(s[lay.q_isr]) and 0 <= s[lay.q_isr] <= lay.all_mask, f"quorum isr {s[lay.q_isr]!r}")
        reqs = s[lay.requests_i]
        if not isinstance(reqs, tuple):
            return [*out, "leaderAndIsrRequests is not a tuple"]
        check(len(reqs) <= cfg.max_leader_epoch + 1, f"{len(reqs)} requests (nextLeaderEpoch out of range)")
        for e, code in enumerate(reqs):
            check(is_int(code) and 0 <= code < lay.request_codes, f"request of epoch {e}: code {code!r}")
        if reqs and is_int(reqs[-1]):
            check(
                lay.request_leader(reqs[-1]) == s[lay.q_leader],
                "quorum leader differs from the leader of the latest request",
            )
        else:
            check(s[lay.q_leader] == -1, "a quorum leader before any request")
        return out

    # Fast path for the predicate (evaluated on every state); ``problems`` explains failures.
    valid_log = bytearray(logs.size)
    for code in range(logs.size):
        valid_log[code] = logs.is_log(code)
    valid_fields = frozenset(
        (hw, epoch, leader, isr)
        for hw in range(cfg.log_size + 1)
        for epoch in range(-1, cfg.max_leader_epoch + 1)
        for leader in range(-1, lay.n)
        for isr in range(lay.all_mask + 1)
    )
    bases = lay.base
    size = logs.size
    n_fields = lay.length
    max_requests = cfg.max_leader_epoch + 1
    request_codes = lay.request_codes
    max_records = cfg.max_records
    n = lay.n
    all_mask = lay.all_mask

    def holds(s: object) -> bool:
        if type(s) is not tuple or len(s) != n_fields:
            return False
        for v in s[:g]:
            if type(v) is not int:
                return False
        for b in bases:
            code = s[b]
            if not 0 <= code < size or not valid_log[code] or s[b + 1 : b + 5] not in valid_fields:
                return False
        nr, q_leader, q_isr, reqs = s[g:]
        if type(nr) is not int or not 0 <= nr <= max_records or type(q_isr) is not int:
            return False
        if not 0 <= q_isr <= all_mask or type(reqs) is not tuple or len(reqs) > max_requests:
            return False
        for code in reqs:
            if type(code) is not int or not 0 <= code < request_codes:
                return False
        return q_leader == ((reqs[-1] >> n) - 1 if reqs else -1)

    return Property.always(
        "TypeOk",
        holds,
        "every field of the state is well formed (the spec's TypeOk on this encoding)",
        lambda s: "; ".join(problems(s)),
    )
