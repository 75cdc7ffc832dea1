"""The KRaft state as symbolic variables, and the map to and from the flat state tuple.

One ``KraftVars`` holds a ``BrokerVars`` per broker (the broker's block of ``isrcheck.model.kraft.fields``)
and the global fields. Broker sets (ISR, ELR, the maximal ISR, a proposal) are lists of Bools, one
per broker; a log is its length and two arrays (each record's leader epoch and value, so a record
code ``epoch * V + value`` needs no division); the controller's metadata log is its length and one
array per record field. The current partition state is the metadata log's last record, read at
``mlen - 1``. The write floor's "none" (``NO_FLOOR``, 2**20 in the explicit tuple) is ``nof``, one
past the largest log end, so small bit-vectors hold it and an acknowledgement range starting there
is empty, as it is explicitly.

Not represented, because the configurations the symbolic form accepts keep them constant (the
package's ``unsupported`` refuses the others by option name): the split fetch's messages in flight
(``fetches``), the stale registration requests (``reg_requests``: empty while at most one shutdown
can happen), and reassignment (``replicas``, ``adding``, ``removing``: every broker a replica, the
``md_replicas`` of a broker is then all of them or, right after it registers, none: ``has_md``).

History (``History``, the field ``h``), in the bounded symbolic state only: what the explicit state
forgets and a proof by induction needs (which broker began each leader epoch at which log end, where
each broker last lost records, where it last registered, at which leader epoch its HW last grew).
The unbounded encoding keeps none (its quantified arrays over leader epochs made the unbounded
proofs several times slower, and the lemmas over the history are proved in the bounded encoding).
The explicit model keeps none of it: ``decode`` ignores it, ``encode`` gives the initial history
(right for the initial state only), and the relation sets it from the step's two states
(``history.py``), so the relation on the real fields is the explicit model's whatever the history
holds.

Arrays are z3 arrays without bounds (proofs), fixed-size lists under the configuration's bounds
(bounded model checking) or tuples (concrete evaluation), per the ``Ops`` backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from isrcheck.model.kraft.fields import (
    ACKED,
    ALTER_PARTITION,
    AP_ACCEPTED,
    BROKER_EPOCH,
    C_BROKER_EPOCH,
    C_UNFENCED,
    CLEAN_SHUTDOWNS,
    CONSUMED,
    EPOCH_START,
    FENCINGS,
    FETCH_FROM,
    FOLLOWERS,
    HW,
    LAST_BROKER_EPOCH,
    LEADER,
    LEADER_SHRINKS,
    LOG,
    MD_ISR,
    MD_LEADER,
    MD_LEADER_EPOCH,
    MD_MAXIMAL_ISR,
    MD_OFFSET,
    MD_PARTITION_EPOCH,
    MD_REPLICAS,
    METADATA_LOG,
    NACKED,
    NIL,
    NO_FLOOR,
    REG_RESPONSE,
    ROLE,
    SENT,
    STATUS,
    TRUE_HW,
    UNCLEAN_SHUTDOWNS,
    WRITE_FLOOR,
)


@dataclass
class BrokerVars:
    status: Any
    bepoch: Any  # broker_epoch
    md_off: Any
    fetch_from: Any
    role: Any
    has_md: Any  # md_replicas is the replica set (else none)
    isr: list
    misr: list  # the maximal ISR
    md_leader: Any
    md_le: Any
    md_pe: Any
    llen: Any
    lep: Any  # the leader epoch of the record at each offset
    lval: Any  # its value
    hw: Any
    eps: Any  # epoch_start
    fleo: list  # followers: the LEO this leader last saw of each broker (-1: none)
    fep: list  # and its broker epoch
    ap_phase: Any  # the AlterPartition slot: 0 empty, else its phase
    ap_isr: list
    ap_ep: list
    wfloor: Any
    unf: Any  # the controller's c_unfenced
    cbe: Any  # the controller's c_broker_epoch
    reg_resp: Any

    def copy(self) -> BrokerVars:
        # A step changes a copy; this runs for every step on every state the differential test reads.
        new = BrokerVars.__new__(BrokerVars)
        d = new.__dict__ = dict(self.__dict__)
        for k in _BROKER_LISTS:
            d[k] = list(d[k])
        return new


_BROKER_LISTS = ("isr", "misr", "fleo", "fep", "ap_isr", "ap_ep")


@dataclass
class KraftVars:
    b: list  # BrokerVars per broker
    mlen: Any
    m_leader: Any
    m_le: Any
    m_pe: Any
    m_isr: list  # per broker, an array over records
    m_elr: list
    m_lk: list
    last_be: Any
    unclean: Any
    clean: Any
    fencings: Any
    shrinks: Any
    sent: list
    acked: list
    nacked: list
    true_hw: Any
    cep: Any  # consumed: invTrueHwm records, their epochs and values
    cval: Any
    h: History

    def copy(self) -> KraftVars:
        new = KraftVars.__new__(KraftVars)
        d = new.__dict__ = dict(self.__dict__)
        d["b"] = [x.copy() for x in self.b]
        d["h"] = self.h.copy()
        for k in _GLOBAL_LISTS:
            d[k] = list(d[k])
        return new


@dataclass
class History:
    """Ghost state (see the module docstring), indexed by leader epoch (``es``, ``esb``) or broker."""

    es: Any  # per leader epoch: the log end its leader began it at (its epoch start); NIL: not begun
    esb: Any  # and that leader's broker epoch then (0: not begun)
    esl: Any  # and the leader (NIL: not begun)
    esx: Any  # and the leader epoch at which that leader had last lost records then (its ``lost``)
    lost: list  # per broker: the leader epoch it was at when it last lost records; 0: none since registering
    reg: list  # per broker: the metadata log's length when it last registered; 0: never registered again
    hwe: Any = 0  # the leader epoch of the leader whose HW advance last moved the true HW (0: none yet)
    lostk: list = field(default_factory=list)  # per broker: the metadata log's length after its last loss (0: none)
    hwat: list = field(default_factory=list)  # per broker: its leader epoch when its HW last grew (0: never)

    def copy(self) -> History:
        return History(self.es, self.esb, self.esl, self.esx, list(self.lost), list(self.reg), self.hwe,
                       list(self.lostk), list(self.hwat))


_GLOBAL_LISTS = ("m_isr", "m_elr", "m_lk", "sent", "acked", "nacked")


@dataclass(frozen=True)
class Sizes:
    """The array sizes of a bounded encoding (None: unbounded arrays): logs and the consumed
    records hold at most ``values`` records, the metadata log ``records``."""

    n: int
    values: int
    log: int | None
    records: int | None

    @property
    def epochs(self) -> int | None:
        """The size of the arrays over leader epochs: a record's leader epoch is at most its index
        plus one (``NewEpochNewLeader``), so at most ``records``."""
        return None if self.records is None else self.records + 1

    @property
    def nof(self) -> int:
        return self.values + 1


def make_vars(ops: Any, name: str, z: Sizes) -> KraftVars:
    """Fresh variables named after ``name`` (e.g. the BMC step ``s3``)."""
    r = range(z.n)

    def broker(b: int) -> BrokerVars:
        p = f"{name}.b{b}."
        return BrokerVars(
            status=ops.int_var(p + "status"), bepoch=ops.int_var(p + "bepoch"), md_off=ops.int_var(p + "md_off"),
            fetch_from=ops.int_var(p + "fetch_from"), role=ops.int_var(p + "role"), has_md=ops.bool_var(p + "has_md"),
            isr=[ops.bool_var(f"{p}isr{j}") for j in r], misr=[ops.bool_var(f"{p}misr{j}") for j in r],
            md_leader=ops.int_var(p + "md_leader"), md_le=ops.int_var(p + "md_le"), md_pe=ops.int_var(p + "md_pe"),
            llen=ops.int_var(p + "llen"), lep=ops.int_array(p + "lep", z.log), lval=ops.int_array(p + "lval", z.log),
            hw=ops.int_var(p + "hw"), eps=ops.int_var(p + "eps"),
            fleo=[ops.int_var(f"{p}fleo{j}") for j in r], fep=[ops.int_var(f"{p}fep{j}") for j in r],
            ap_phase=ops.int_var(p + "ap_phase"), ap_isr=[ops.bool_var(f"{p}ap_isr{j}") for j in r],
            ap_ep=[ops.int_var(f"{p}ap_ep{j}") for j in r], wfloor=ops.int_var(p + "wfloor"),
            unf=ops.bool_var(p + "unf"), cbe=ops.int_var(p + "cbe"), reg_resp=ops.int_var(p + "reg_resp"))

    return KraftVars(
        b=[broker(b) for b in r], mlen=ops.int_var(f"{name}.mlen"),
        m_leader=ops.int_array(f"{name}.m_leader", z.records), m_le=ops.int_array(f"{name}.m_le", z.records),
        m_pe=ops.int_array(f"{name}.m_pe", z.records),
        m_isr=[ops.bool_array(f"{name}.m_isr{j}", z.records) for j in r],
        m_elr=[ops.bool_array(f"{name}.m_elr{j}", z.records) for j in r],
        m_lk=[ops.bool_array(f"{name}.m_lk{j}", z.records) for j in r],
        last_be=ops.int_var(f"{name}.last_be"), unclean=ops.int_var(f"{name}.unclean"),
        clean=ops.int_var(f"{name}.clean"), fencings=ops.int_var(f"{name}.fencings"),
        shrinks=ops.int_var(f"{name}.shrinks"),
        sent=[ops.bool_var(f"{name}.sent{x}") for x in range(z.values)],
        acked=[ops.bool_var(f"{name}.acked{x}") for x in range(z.values)],
        nacked=[ops.bool_var(f"{name}.nacked{x}") for x in range(z.values)],
        true_hw=ops.int_var(f"{name}.true_hw"), cep=ops.int_array(f"{name}.cep", z.log),
        cval=ops.int_array(f"{name}.cval", z.log),
        h=no_history() if z.epochs is None else History(
            es=ops.int_array(f"{name}.h_es", z.epochs), esb=ops.int_array(f"{name}.h_esb", z.epochs),
            esl=ops.int_array(f"{name}.h_esl", z.epochs), esx=ops.int_array(f"{name}.h_esx", z.epochs),
            lost=[ops.int_var(f"{name}.h_lost{j}") for j in r], reg=[ops.int_var(f"{name}.h_reg{j}") for j in r],
            hwe=ops.int_var(f"{name}.h_hwe"), lostk=[ops.int_var(f"{name}.h_lostk{j}") for j in r],
            hwat=[ops.int_var(f"{name}.h_hwat{j}") for j in r]))


def no_history() -> History:
    """The history of the unbounded encoding: none (see the module docstring)."""
    return History((), (), (), (), [], [])


def _bits(mask: int, n: int) -> list[bool]:
    return [bool(mask >> j & 1) for j in range(n)]


def _mask(value: Any, bits: list) -> int:
    return sum(1 << j for j, x in enumerate(bits) if value(x))


def encode(model: Any, s: tuple, z: Sizes) -> KraftVars:
    """The explicit state ``s`` as concrete values (arrays as tuples)."""
    lay, nv, n = model.layout, z.values, z.n
    g = lay.g

    def broker(b: int) -> BrokerVars:
        o = lay.base[b]
        ap = s[o + ALTER_PARTITION]
        log = s[o + LOG]
        return BrokerVars(
            status=s[o + STATUS], bepoch=s[o + BROKER_EPOCH], md_off=s[o + MD_OFFSET], fetch_from=s[o + FETCH_FROM],
            role=s[o + ROLE], has_md=bool(s[o + MD_REPLICAS]), isr=_bits(s[o + MD_ISR], n),
            misr=_bits(s[o + MD_MAXIMAL_ISR], n), md_leader=s[o + MD_LEADER], md_le=s[o + MD_LEADER_EPOCH],
            md_pe=s[o + MD_PARTITION_EPOCH], llen=len(log), lep=tuple(r // nv for r in log),
            lval=tuple(r % nv for r in log), hw=s[o + HW], eps=s[o + EPOCH_START],
            fleo=[leo for leo, _ in s[o + FOLLOWERS]], fep=[e for _, e in s[o + FOLLOWERS]],
            ap_phase=ap[0] if ap else 0, ap_isr=_bits(ap[1] if ap else 0, n),
            ap_ep=list(ap[2]) if ap else [0] * n,
            wfloor=z.nof if s[o + WRITE_FLOOR] == NO_FLOOR else s[o + WRITE_FLOOR],
            unf=bool(s[o + C_UNFENCED]), cbe=s[o + C_BROKER_EPOCH], reg_resp=s[o + REG_RESPONSE])

    md = s[g + METADATA_LOG]
    consumed = s[g + CONSUMED]
    return KraftVars(
        b=[broker(b) for b in range(n)], mlen=len(md), m_leader=tuple(r[0] for r in md),
        m_le=tuple(r[1] for r in md), m_pe=tuple(r[2] for r in md),
        m_isr=[tuple(bool(r[3] >> j & 1) for r in md) for j in range(n)],
        m_elr=[tuple(bool(r[4] >> j & 1) for r in md) for j in range(n)],
        m_lk=[tuple(bool(r[5] >> j & 1) for r in md) for j in range(n)],
        last_be=s[g + LAST_BROKER_EPOCH], unclean=s[g + UNCLEAN_SHUTDOWNS], clean=s[g + CLEAN_SHUTDOWNS],
        fencings=s[g + FENCINGS], shrinks=s[g + LEADER_SHRINKS], sent=_bits(s[g + SENT], nv),
        acked=_bits(s[g + ACKED], nv), nacked=_bits(s[g + NACKED], nv), true_hw=s[g + TRUE_HW],
        cep=tuple(r // nv for r in consumed), cval=tuple(r % nv for r in consumed),
        h=initial_history(s, lay, z))


def initial_history(s: tuple, lay: Any, z: Sizes) -> History:
    """The history of the initial state ``s``: its leaders have begun their leader epochs (at their
    epoch start, in their broker epoch), no broker has lost records or registered again. Over the
    leader epochs the symbolic form can reach (``Sizes.epochs``); none unbounded."""
    if z.epochs is None:
        return no_history()
    size = z.epochs
    es, esb, esl = [NIL] * size, [0] * size, [NIL] * size
    for b in range(z.n):
        o = lay.base[b]
        e = s[o + MD_LEADER_EPOCH]
        if s[o + ROLE] == LEADER and 0 <= e < size:
            es[e], esb[e], esl[e] = s[o + EPOCH_START], s[o + BROKER_EPOCH], b
    # The initial true HW is 0 in every configuration the symbolic form accepts: no advance yet.
    return History(es=tuple(es), esb=tuple(esb), esl=tuple(esl), esx=(0,) * size, lost=[0] * z.n, reg=[0] * z.n,
                   hwe=0, lostk=[0] * z.n, hwat=[0] * z.n)


class DecodeError(ValueError):
    """Values that are no state of the explicit model (outside its bounds or its encoding)."""


def decode(model: Any, ops: Any, value: Any, v: KraftVars, z: Sizes) -> tuple:
    """The explicit state whose values ``value(term)`` gives (a z3 model's evaluation, or the
    identity on concrete values)."""
    lay, nv, n = model.layout, z.values, z.n
    all_mask = lay.all_mask

    def records(length: Any, ep: Any, val: Any, what: str) -> tuple:
        k = value(length)
        if z.log is not None and not 0 <= k <= z.log:
            raise DecodeError(f"{what} has {k} records; the explicit model holds at most {z.log}")
        out = []
        for off in range(k):
            e, x = value(ops.sel(ep, off)), value(ops.sel(val, off))
            if not 0 <= x < nv or e < 0:
                raise DecodeError(f"{what} holds value {x} of epoch {e} at offset {off}, outside the explicit model")
            out.append(e * nv + x)
        return tuple(out)

    s: list[Any] = []
    for b, x in enumerate(v.b):
        phase = value(x.ap_phase)
        if phase:
            ap = (phase, _mask(value, x.ap_isr), tuple(value(e) for e in x.ap_ep))
            if phase == AP_ACCEPTED:
                ap += (all_mask,)
        else:
            ap = 0
        wfloor = value(x.wfloor)
        s += [value(x.status), value(x.bepoch), value(x.md_off), value(x.fetch_from), value(x.role),
              all_mask if value(x.has_md) else 0, _mask(value, x.isr), _mask(value, x.misr), value(x.md_leader),
              value(x.md_le), value(x.md_pe), records(x.llen, x.lep, x.lval, f"broker {b + 1}'s log"),
              value(x.hw), value(x.eps), tuple((value(leo), value(e)) for leo, e in zip(x.fleo, x.fep, strict=True)),
              ap, NO_FLOOR if wfloor == z.nof else wfloor, int(bool(value(x.unf))), value(x.cbe),
              lay.no_fetches, (), value(x.reg_resp)]
    mlen = value(v.mlen)
    if mlen < 1 or (z.records is not None and mlen > z.records):
        raise DecodeError(f"the metadata log has {mlen} records; the symbolic form holds 1..{z.records}")
    ctl = model._steps.ctl
    md = tuple(ctl.record(value(ops.sel(v.m_leader, i)), value(ops.sel(v.m_le, i)), value(ops.sel(v.m_pe, i)),
                          sum(1 << j for j in range(n) if value(ops.sel(v.m_isr[j], i))),
                          sum(1 << j for j in range(n) if value(ops.sel(v.m_elr[j], i))),
                          sum(1 << j for j in range(n) if value(ops.sel(v.m_lk[j], i))), all_mask)
               for i in range(mlen))
    s += [md, value(v.last_be), value(v.unclean), value(v.clean), value(v.fencings), value(v.shrinks),
          _mask(value, v.sent), _mask(value, v.acked), _mask(value, v.nacked), value(v.true_hw),
          records(v.true_hw, v.cep, v.cval, "the consumed records"), 0]
    return tuple(s)


def init(ops: Any, v: KraftVars, start: KraftVars) -> Any:
    """``Init``: ``v`` equals the explicit model's one initial state (``start``, encoded)."""
    return equal(ops, v, start, exact=False)


def equal(ops: Any, v: KraftVars, w: KraftVars, exact: bool = True, z: Sizes | None = None) -> Any:
    """``v`` and ``w`` are the same state: every scalar and every array below its length (``exact``:
    arrays everywhere; ``w`` may hold concrete tuples)."""
    parts: list[Any] = []

    def arr(x: Any, y: Any, upto: Any, size: int | None) -> None:
        if isinstance(y, tuple):  # concrete: the positions it has
            parts.extend(ops.sel(x, o) == e for o, e in enumerate(y))
        elif exact and isinstance(x, list):
            parts.extend(p == q for p, q in zip(x, y, strict=True))
        elif exact:
            parts.append(x == y)
        else:
            parts.append(ops.forall(0, upto, lambda o: ops.sel(x, o) == ops.sel(y, o), size))

    size_log = z.log if z else None
    size_md = z.records if z else None
    for x, y in zip(v.b, w.b, strict=True):
        for k in ("status", "bepoch", "md_off", "fetch_from", "role", "has_md", "md_leader", "md_le", "md_pe",
                  "llen", "hw", "eps", "ap_phase", "wfloor", "unf", "cbe", "reg_resp"):
            parts.append(getattr(x, k) == getattr(y, k))
        for k in ("isr", "misr", "fleo", "fep", "ap_isr", "ap_ep"):
            parts += [p == q for p, q in zip(getattr(x, k), getattr(y, k), strict=True)]
        arr(x.lep, y.lep, x.llen, size_log)
        arr(x.lval, y.lval, x.llen, size_log)
    for k in ("mlen", "last_be", "unclean", "clean", "fencings", "shrinks", "true_hw"):
        parts.append(getattr(v, k) == getattr(w, k))
    for k in ("sent", "acked", "nacked"):
        parts += [p == q for p, q in zip(getattr(v, k), getattr(w, k), strict=True)]
    for k in ("m_leader", "m_le", "m_pe"):
        arr(getattr(v, k), getattr(w, k), v.mlen, size_md)
    for k in ("m_isr", "m_elr", "m_lk"):
        for x, y in zip(getattr(v, k), getattr(w, k), strict=True):
            arr(x, y, v.mlen, size_md)
    arr(v.cep, w.cep, v.true_hw, size_log)
    arr(v.cval, w.cval, v.true_hw, size_log)
    # The history too: Init pins it, and k-induction's distinct states differ in it or in a field.
    # A leader epoch is at most the metadata log's length (``Sizes.epochs``).
    arr(v.h.es, w.h.es, v.mlen + 1, z.epochs if z else None)
    arr(v.h.esb, w.h.esb, v.mlen + 1, z.epochs if z else None)
    arr(v.h.esl, w.h.esl, v.mlen + 1, z.epochs if z else None)
    arr(v.h.esx, w.h.esx, v.mlen + 1, z.epochs if z else None)
    parts += [p == q for p, q in zip(v.h.lost + v.h.reg, w.h.lost + w.h.reg, strict=True)]
    if z is not None and z.epochs is not None:
        parts.append(v.h.hwe == w.h.hwe)
        parts += [p == q for p, q in zip(v.h.lostk + v.h.hwat, w.h.lostk + w.h.hwat, strict=True)]
    return ops.and_(*parts)
