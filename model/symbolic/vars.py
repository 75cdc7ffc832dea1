"""The classic model's state as symbolic variables, and the map to and from the flat state tuple.

One ``KafkaVars`` holds, for replicas ``i = 0..n-1`` (the number of replicas is fixed):

==================  ==========================================================================
``length[i]``       end offset of ``replicaLog[i]`` (Int)
``rid[i]``          record id at each offset (array Int -> Int; don't-care at and past ``length``)
``rep[i]``          leader epoch stamped on the record at each offset (array Int -> Int)
``hw[i]``           ``replicaState[i].hw``
``ep[i]``           ``replicaState[i].leaderEpoch`` (-1: Nil)
``ld[i]``           ``replicaState[i].leader`` (-1: None)
``isr[i][j]``       replica j is in replica i's cached ISR (Bool)
``nrid``            ``nextRecordId``
``ql``, ``qisr[j]`` ``quorumState.leader`` and ISR
``nreq``            how many LeaderAndIsr requests were sent = ``nextLeaderEpoch``
``req_ld``          leader named by the request of each epoch (array Int -> Int; below ``nreq``)
``req_isr[j]``      replica j in that request's ISR (array Int -> Bool)
``dead[i]``         broker i is stopped (Bool; durability options with ``max_crashes``, else [])
``crashes``         stops so far (Int; 0 when brokers never stop)
``flushed[i]``      replica i's flushed offset, its recovery point (Int; lossy stops, else [])
``acked[x]``        record id x was acknowledged to its producer (Bool; ``acks`` on, else [])
``az_failures``     availability-zone failures so far (Int; 0 without ``max_az_failures``)
``served[o]``       the ghost of consumer reads at offset o: record id + 1, CONFLICT, 0 (Int; consumers)
==================  ==========================================================================

Arrays are z3 arrays without bounds (proofs), fixed-size lists under the explicit model's bounds
(bounded model checking) or tuples (concrete evaluation), per the ``Ops`` backend
(``isrcheck.explorer.symbolic.ops``). Record ids, offsets and epochs are unbounded Ints unless the
relation's guards bound them. ``acked`` and ``served`` are lists of one variable per record id and
offset under the bounds, and one array each without them (``Extras.records``/``served`` None): an
array over every id and offset, all false and 0 initially. Without bounds CONFLICT is
``UNBOUNDED_CONFLICT`` (-1: no record id + 1 is negative), translated to and from the explicit
model's ``served_conflict`` by ``encode``/``decode``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from isrcheck.model.encoding.fields import served_conflict

from . import adapter as a

# The served ghost's conflict mark without bounds (record ids unbounded, so no id + 1 is free above them).
UNBOUNDED_CONFLICT = -1


@dataclass
class KafkaVars:
    length: list
    rid: list
    rep: list
    hw: list
    ep: list
    ld: list
    isr: list  # isr[i][j]
    nrid: Any
    ql: Any
    qisr: list
    nreq: Any
    req_ld: Any
    req_isr: list
    # The durability options' fields (isrcheck.model.symbolic.durability); empty when the option is off.
    dead: list = field(default_factory=list)
    crashes: Any = 0
    flushed: list = field(default_factory=list)
    acked: list = field(default_factory=list)
    az_failures: Any = 0
    served: list = field(default_factory=list)

    def copy(self) -> KafkaVars:
        return KafkaVars(
            list(self.length), list(self.rid), list(self.rep), list(self.hw), list(self.ep), list(self.ld),
            [list(row) for row in self.isr], self.nrid, self.ql, list(self.qisr), self.nreq, self.req_ld,
            list(self.req_isr), list(self.dead), self.crashes, list(self.flushed), _copy(self.acked),
            self.az_failures, _copy(self.served),
        )


def _copy(x: Any) -> Any:
    return list(x) if isinstance(x, list) else x  # an array (unbounded) is a value


@dataclass(frozen=True)
class Extras:
    """Which durability fields a configuration has (``isrcheck.model.encoding.fields``): stopped brokers
    and the stop count, flushed offsets, and acknowledgements of ``records`` record ids."""

    stops: bool = False
    flushed: bool = False
    records: int | None = 0  # acked ids tracked (max_records); 0: acks off; None: every id (an array)
    zones: bool = False  # availability-zone failures are counted
    served: int | None = 0  # offsets of the consumer-read ghost (log_size); 0: consumers off; None: an array


def make_vars(ops: Any, name: str, n: int, log_size: int | None, epochs: int | None,
              extras: Extras | None = None) -> KafkaVars:
    """Fresh variables named after ``name`` (e.g. the BMC step ``s3``)."""
    r = range(n)
    extras = extras or Extras()
    return KafkaVars(
        length=[ops.int_var(f"{name}.len{i}") for i in r],
        rid=[ops.int_array(f"{name}.rid{i}", log_size) for i in r],
        rep=[ops.int_array(f"{name}.rep{i}", log_size) for i in r],
        hw=[ops.int_var(f"{name}.hw{i}") for i in r],
        ep=[ops.int_var(f"{name}.ep{i}") for i in r],
        ld=[ops.int_var(f"{name}.ld{i}") for i in r],
        isr=[[ops.bool_var(f"{name}.isr{i}_{j}") for j in r] for i in r],
        nrid=ops.int_var(f"{name}.nrid"),
        ql=ops.int_var(f"{name}.ql"),
        qisr=[ops.bool_var(f"{name}.qisr{j}") for j in r],
        nreq=ops.int_var(f"{name}.nreq"),
        req_ld=ops.int_array(f"{name}.req_ld", epochs),
        req_isr=[ops.bool_array(f"{name}.req_isr{j}", epochs) for j in r],
        dead=[ops.bool_var(f"{name}.dead{i}") for i in r] if extras.stops else [],
        crashes=ops.int_var(f"{name}.crashes") if extras.stops else 0,
        flushed=[ops.int_var(f"{name}.flushed{i}") for i in r] if extras.flushed else [],
        acked=(ops.bool_array(f"{name}.acked") if extras.records is None
               else [ops.bool_var(f"{name}.acked{x}") for x in range(extras.records)]),
        az_failures=ops.int_var(f"{name}.az_failures") if extras.zones else 0,
        served=(ops.int_array(f"{name}.served") if extras.served is None
                else [ops.int_var(f"{name}.served{o}") for o in range(extras.served)]),
    )


def init(ops: Any, v: KafkaVars) -> Any:
    """``Init``: empty logs, HW 0, epoch Nil, no leader, empty cached ISR; the quorum has no
    leader and every replica in its ISR; no request sent."""
    n = len(v.hw)
    parts = []
    for i in range(n):
        parts += [v.length[i] == 0, v.hw[i] == 0, v.ep[i] == -1, v.ld[i] == -1]
        parts += [ops.not_(v.isr[i][j]) for j in range(n)]
    parts += [v.nrid == 0, v.ql == -1, v.nreq == 0, *v.qisr]
    parts += [ops.not_(x) for x in v.dead] + [x == 0 for x in v.flushed]
    parts += [v.crashes == 0, v.az_failures == 0]
    # Unbounded: arrays, false and 0 at every id and offset (the whole domain: no bounds to stop at).
    if isinstance(v.acked, list):
        parts += [ops.not_(x) for x in v.acked]
    else:
        parts.append(ops.forall(None, None, lambda x: ops.not_(ops.sel(v.acked, x))))
    if isinstance(v.served, list):
        parts += [x == 0 for x in v.served]
    else:
        parts.append(ops.forall(None, None, lambda o: ops.sel(v.served, o) == 0))
    return ops.and_(*parts)


def equal(ops: Any, v: KafkaVars, w: KafkaVars, log_size: int | None, epochs: int | None,
          exact: bool = True) -> Any:
    """``v`` and ``w`` are the same state. ``exact``: arrays equal everywhere (a transition's next
    state is then a function of the current one); otherwise only below the log end offsets and
    ``nreq`` (the same explicit state)."""
    n = len(v.hw)
    parts = [v.nrid == w.nrid, v.ql == w.ql, v.nreq == w.nreq]
    for i in range(n):
        parts += [v.length[i] == w.length[i], v.hw[i] == w.hw[i], v.ep[i] == w.ep[i], v.ld[i] == w.ld[i]]
        parts += [v.isr[i][j] == w.isr[i][j] for j in range(n)]
        parts.append(v.qisr[i] == w.qisr[i])
    parts += [x == y for x, y in zip(v.dead + v.flushed, w.dead + w.flushed, strict=True)]
    parts += [v.crashes == w.crashes, v.az_failures == w.az_failures]
    for x, y in ((v.acked, w.acked), (v.served, w.served)):  # lists, or arrays over every id/offset
        parts += [p == q for p, q in zip(x, y, strict=True)] if isinstance(x, list) else [x == y]
    arrays = [(v.rid[i], w.rid[i], v.length[i], log_size) for i in range(n)]
    arrays += [(v.rep[i], w.rep[i], v.length[i], log_size) for i in range(n)]
    arrays += [(v.req_ld, w.req_ld, v.nreq, epochs)] + [(v.req_isr[j], w.req_isr[j], v.nreq, epochs) for j in range(n)]
    for x, y, upto, size in arrays:
        if exact and isinstance(x, list):
            parts += [p == q for p, q in zip(x, y, strict=True)]
        elif exact:
            parts.append(x == y)
        else:
            parts.append(ops.forall(0, upto, lambda o, x=x, y=y: ops.sel(x, o) == ops.sel(y, o), size))
    return ops.and_(*parts)


def encode(model: Any, s: tuple) -> KafkaVars:
    """The explicit state ``s`` as concrete values (arrays as tuples)."""
    lay, logs = a.layout_of(model), a.logs_of(model)
    n = lay.n
    blocks = [lay.replica_fields(s, i) for i in range(n)]
    recs = [logs.records[b[a.LOG]] for b in blocks]
    g = lay.g
    reqs = list(lay.requests(s))
    return KafkaVars(
        length=[len(r) for r in recs],
        rid=[tuple(logs.record_id(x) for x in r) for r in recs],
        rep=[tuple(logs.record_epoch(x) for x in r) for r in recs],
        hw=[b[a.HW] for b in blocks],
        ep=[b[a.EPOCH] for b in blocks],
        ld=[b[a.LEADER] for b in blocks],
        isr=[[bool(b[a.ISR] >> j & 1) for j in range(n)] for b in blocks],
        nrid=s[g + a.NEXT_RECORD_ID],
        ql=s[g + a.Q_LEADER],
        qisr=[bool(s[g + a.Q_ISR] >> j & 1) for j in range(n)],
        nreq=len(reqs),
        req_ld=tuple(ld for _, ld, _ in reqs),
        req_isr=[tuple(bool(isr >> j & 1) for _, _, isr in reqs) for j in range(n)],
        **_encode_extras(model, s, n),
    )


def _encode_extras(model: Any, s: tuple, n: int) -> dict[str, Any]:
    f = a.fields_of(model)
    records = a.config_of(model).max_records
    return {
        "dead": [bool(s[f.dead] >> i & 1) for i in range(n)] if f.dead >= 0 else [],
        "crashes": s[f.crashes] if f.crashes >= 0 else 0,
        "flushed": [s[f.flushed + i] for i in range(n)] if f.flushed >= 0 else [],
        "acked": [bool(s[f.acked] >> x & 1) for x in range(records)] if f.acked >= 0 else [],
        "az_failures": s[f.az_failed] if f.az_failed >= 0 else 0,
        "served": [s[f.served + o] for o in range(a.config_of(model).log_size)] if f.served >= 0 else [],
    }


class DecodeError(Exception):
    """Values that are no state of the explicit model (outside its bounds or its encoding)."""


def decode(model: Any, ops: Any, value: Any, v: KafkaVars) -> tuple:
    """The explicit state whose values ``value(term)`` gives (a z3 model's evaluation, or the
    identity on concrete values)."""
    lay, logs = a.layout_of(model), a.logs_of(model)
    n = lay.n
    out: list = []
    for i in range(n):
        k = value(v.length[i])
        if not 0 <= k <= logs.log_size:
            raise DecodeError(f"replica {i + 1}'s log has {k} records; the explicit model holds {logs.log_size}")
        recs = []
        for o in range(k):
            rid, rep = value(ops.sel(v.rid[i], o)), value(ops.sel(v.rep[i], o))
            if not (0 <= rid < logs.record_kinds // logs.epochs and 0 <= rep < logs.epochs):
                raise DecodeError(f"replica {i + 1} holds record {rid} of epoch {rep}, outside the explicit bounds")
            recs.append(logs.record(rid, rep))
        isr = sum(1 << j for j in range(n) if value(v.isr[i][j]))
        out += [logs.encode(tuple(recs)), value(v.hw[i]), value(v.ep[i]), value(v.ld[i]), isr]
    nreq = value(v.nreq)
    requests = []
    for e in range(nreq):
        isr = sum(1 << j for j in range(n) if value(ops.sel(v.req_isr[j], e)))
        requests.append(lay.request(value(ops.sel(v.req_ld, e)), isr))
    qisr = sum(1 << j for j in range(n) if value(v.qisr[j]))
    out += [value(v.nrid), value(v.ql), qisr, tuple(requests)]
    for f, _ in a.fields_of(model).rows:  # the durability fields, in the layout's order
        if f.name == "dead":
            out.append(sum(1 << i for i in range(n) if value(v.dead[i])))
        elif f.name == "crashes":
            out.append(value(v.crashes))
        elif f.name == "flushed":
            out += [value(x) for x in v.flushed]
        elif f.name == "acked":
            acked = v.acked if isinstance(v.acked, list) else \
                [ops.sel(v.acked, x) for x in range(a.config_of(model).max_records)]
            out.append(sum(1 << x for x, y in enumerate(acked) if value(y)))
        elif f.name == "served" and isinstance(v.served, list):
            out += [value(x) for x in v.served]
        elif f.name == "served":
            out += [_served_from(model, value(ops.sel(v.served, o))) for o in range(logs.log_size)]
        elif f.name == "az_failed":
            out.append(value(v.az_failures))
        elif f.name == "racks":  # configuration, no place in the tuple
            continue
        else:
            raise DecodeError(f"the symbolic state has no field {f.name}")
    return tuple(out)


def every_index(o: Any, xs: Any, body: Any) -> Any:
    """``body(index, value)`` at every index of ``xs``: each element of a list (bounded) or of a
    tuple (an array's concrete value: past its end every value is the initial one, where the
    callers' bodies hold), or a quantifier over the whole domain of a z3 array (unbounded)."""
    if isinstance(xs, list | tuple):
        return o.and_(*(body(i, x) for i, x in enumerate(xs)))
    return o.forall(None, None, lambda i: body(i, o.sel(xs, i)))


def unbounded_extras(model: Any, v: KafkaVars) -> KafkaVars:
    """``v`` (``encode``'s) with ``acked`` and ``served`` as the unbounded encoding holds them: tuples
    read as arrays over every id and offset, CONFLICT as ``UNBOUNDED_CONFLICT``."""
    if v.acked:
        v.acked = tuple(v.acked)
    if v.served:
        conflict = a.fields_of(model).served_conflict
        v.served = tuple(UNBOUNDED_CONFLICT if x == conflict else x for x in v.served)
    return v


def _served_from(model: Any, x: int) -> int:
    """An unbounded served value in the explicit ``model``'s encoding (its CONFLICT)."""
    records = a.config_of(model).max_records
    if x == UNBOUNDED_CONFLICT:
        return served_conflict(records)
    if not 0 <= x <= records:
        raise DecodeError(f"a consumer was served record {x - 1}, outside the explicit bounds")
    return x


def swap_fixed(ops: Any, v: KafkaVars, i: int, j: int, log_size: int | None, epochs: int | None) -> Any:
    """Swapping replicas ``i`` and ``j`` leaves ``v`` the same explicit state (symmetry breaking,
    ``isrcheck.explorer.symbolic.symmetry``): equal logs (below their end), HWs, epochs and ISR rows; every
    replica reference (cached leaders, the quorum's, each request's) maps to itself under the swap."""
    n = len(v.hw)
    tau = [j if r == i else i if r == j else r for r in range(n)]

    def maps_to(x: Any, y: Any) -> Any:  # y is the swap of replica reference x (-1: none)
        return ops.or_(*(ops.and_(x == r, y == tau[r]) for r in range(n)), ops.and_(x == -1, y == -1))

    parts = [v.length[i] == v.length[j], v.hw[i] == v.hw[j], v.ep[i] == v.ep[j], v.qisr[i] == v.qisr[j],
             ops.forall(0, v.length[i], lambda k: ops.and_(ops.sel(v.rid[i], k) == ops.sel(v.rid[j], k),
                                                           ops.sel(v.rep[i], k) == ops.sel(v.rep[j], k)), log_size),
             v.ql != i, v.ql != j]
    for r in range(n):
        parts.append(maps_to(v.ld[r], v.ld[tau[r]]))
        parts += [v.isr[r][c] == v.isr[tau[r]][tau[c]] for c in range(n)]
    parts.append(ops.forall(0, v.nreq, lambda e: ops.and_(
        ops.sel(v.req_ld, e) != i, ops.sel(v.req_ld, e) != j,
        ops.sel(v.req_isr[i], e) == ops.sel(v.req_isr[j], e)), epochs))
    return ops.and_(*parts)
