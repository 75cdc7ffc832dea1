"""The KRaft steps written once (``isrcheck.model.kraft.described``) as symbolic relations: each
description is run on the state variables of an ``Ops`` backend (z3 terms, bounded or unbounded,
or concrete values), once per acting broker and per choice of its build-time cases, giving that
``SymStep``'s ``(guard, next variables)``.

How the description's operations read here: a field is its variable in ``KraftVars``
(``FIELD``/``GLOBAL``: the explicit field's name to the variable's), a broker set is a list of
Booleans, ``require`` adds to the guard (a plainly false one disables the instance), ``case`` is
the instance's case, and ``emit`` ends the step. A variable a step does not write stays the very
term it was.

Abstracted away: as in the explicit steps.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.model.kraft.described import Described, steps_of
from isrcheck.model.kraft.fields import AP_REQUEST, NIL

from .. import functions, rules
from ..rules import at_least
from .vars import KraftVars

# The explicit field's name -> its variable in BrokerVars (md_replicas: see KraftReader.put).
FIELD = {"status": "status", "broker_epoch": "bepoch", "md_offset": "md_off", "fetch_from": "fetch_from",
         "role": "role", "md_isr": "isr", "md_maximal_isr": "misr", "md_leader": "md_leader",
         "md_leader_epoch": "md_le", "md_partition_epoch": "md_pe", "hw": "hw", "epoch_start": "eps",
         "c_broker_epoch": "cbe", "c_unfenced": "unf", "reg_response": "reg_resp", "write_floor": "wfloor"}
GLOBAL = {"last_broker_epoch": "last_be", "unclean_shutdowns": "unclean", "clean_shutdowns": "clean",
          "fencings": "fencings", "leader_shrinks": "shrinks", "true_hw": "true_hw"}


class _Off(Exception):
    """A guard of this instance is plainly false: the step is not enabled."""


class KraftReader:
    """The operations of ``isrcheck.model.kraft.described`` on symbolic variables ``v`` for one step
    instance (``pinned``: its cases by name)."""

    def __init__(self, o: Any, v: KraftVars, sym: Any, pinned: dict[str, Any]) -> None:
        config = sym.c
        self.o, self.v, self.sym, self.config, self.gen, self.n = o, v, sym, config, config.gen, config.brokers
        self.pinned = pinned
        self.w = v.copy()
        self.guards: list[Any] = []
        self.result: tuple[Any, Any] | None = None

    # -- control and logic ---------------------------------------------------------------------

    def require(self, *conds: Any) -> None:
        for c in conds:
            if c is True:
                continue
            if c is False or self.o.is_false(c):
                raise _Off
            self.guards.append(c)

    def cases(self, name: str) -> Iterator[Any]:
        yield self.pinned[name]

    def elected_choices(self) -> Iterator[Any]:
        """The controller's choice of the elected broker: one variable (-1: no one elected)."""
        yield self.o.choose(-1, self.n, "elected")

    def single(self, c: Any, when: Any) -> list:
        return [self.o.and_(when, c == j) for j in range(self.n)]

    @staticmethod
    def elected_id(c: Any, stays: Any) -> None:
        return None  # what the action shows: not part of the relation

    def and_(self, *xs: Any) -> Any:
        return self.o.and_(*xs)

    def or_(self, *xs: Any) -> Any:
        return self.o.or_(*xs)

    def not_(self, x: Any) -> Any:
        return self.o.not_(x)

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        return self.o.ite(c, a, b)

    def one_of(self, v: Any, values: tuple) -> Any:
        return self.o.or_(*(v == x for x in values))

    # -- the state -------------------------------------------------------------------------------

    def get(self, b: int, name: str) -> Any:
        if name == "md_replicas":  # every broker is a replica, or (right after registering) none
            return [self.v.b[b].has_md] * self.n
        return getattr(self.v.b[b], FIELD[name])

    def glob(self, name: str) -> Any:
        return getattr(self.v, GLOBAL[name])

    def no_brokers(self) -> list:
        return [self.o.false] * self.n

    @property
    def no_floor(self) -> Any:
        return self.sym.z.nof

    def at_least(self, bits: list, m: int) -> Any:
        return at_least(self.o, bits, m)

    def log_end(self, b: int) -> Any:
        return self.v.b[b].llen

    def value_sent(self, val: int) -> Any:
        return self.v.sent[val]

    @staticmethod
    def let(v: Any) -> Any:
        return v

    def append_record(self, b: int, epoch: Any, val: int) -> None:
        o, x, y, log = self.o, self.w.b[b], self.v.b[b], self.sym.z.log
        if log is not None:
            self.require(y.llen < log)
        x.lep = o.store(y.lep, y.llen, epoch)
        x.lval = o.store(y.lval, y.llen, val)
        x.llen = y.llen + 1

    def mark_sent(self, val: int) -> None:
        self.w.sent = [self.o.true if i == val else s for i, s in enumerate(self.v.sent)]

    def clear_log(self, b: int) -> None:
        self.w.b[b].llen = 0

    def blank_leadership(self, b: int) -> None:
        self.sym.blank(self.o, self.w.b[b])

    def keep_registration_in_flight(self, b: int) -> None:
        """Not represented: empty in every configuration the symbolic form accepts (``vars.py``)."""

    def drop_fetch_sessions(self, b: int) -> None:
        """Not represented: the split fetch is refused by the symbolic form."""

    def controller_isr_is(self, b: int) -> Any:
        o, v = self.o, self.v
        i = v.mlen - 1
        return o.and_(*(o.sel(v.m_isr[j], i) if j == b else o.not_(o.sel(v.m_isr[j], i)) for j in range(self.n)))

    def ap_phase(self, b: int) -> Any:
        return self.v.b[b].ap_phase

    def ap_proposed(self, b: int) -> list:
        return list(self.v.b[b].ap_isr)

    def ap_replicas(self, b: int) -> list:
        return list(self.sym.replicas)

    def commit_offset(self, b: int, members: list, leo: Any, known: bool) -> Any:
        fleo = self.w.b[b].fleo if known else self.v.b[b].fleo
        return functions.commit_offset(self.o, b, members, leo, fleo)

    def hw_isr_ok(self, isr: list) -> Any:
        return rules.hw_isr_ok(self.o, self.gen, self.config.min_isr, isr)

    @staticmethod
    def later(v: Any) -> Any:
        return v

    def ghost(self, name: str, val: int) -> Any:
        return getattr(self.v, name)[val]

    def ghost_add(self, name: str, val: int, when: Any) -> None:
        values = list(getattr(self.w, name))
        values[val] = self.o.or_(values[val], when)
        setattr(self.w, name, values)

    def next_log_holds(self, b: int, lo: Any, hi: Any, val: int) -> Any:
        o, x = self.o, self.w.b[b]
        return o.exists(lo, hi, lambda off: o.sel(x.lval, off) == val, self.sym.z.log)

    def consume_up_to(self, b: int, hw: Any, when: Any) -> None:
        o, v, w, size = self.o, self.v, self.w, self.sym.z.log
        x = w.b[b]
        upto = o.ite(o.and_(when, hw > v.true_hw), hw, v.true_hw)
        w.cep = o.copy_range(w.cep, x.lep, v.true_hw, upto, size)
        w.cval = o.copy_range(w.cval, x.lval, v.true_hw, upto, size)
        w.true_hw = upto

    def last_fetched_epoch(self, f: int) -> Any:
        y = self.v.b[f]
        return self.o.ite(y.llen > 0, self.o.sel(y.lep, y.llen - 1), 0)

    def last_offset_for_epoch(self, b: int, epoch: Any, is_leader: bool) -> tuple[Any, Any]:
        return self.sym.last_offset_for_epoch(self.o, self.v.b[b], epoch, is_leader)

    def truncate_log(self, f: int, offset: Any) -> None:
        self.w.b[f].llen = offset

    def record_follower(self, ld: int, f: int, leo: Any, broker_epoch: Any) -> None:
        lx, lv = self.w.b[ld], self.v.b[ld]
        lx.fleo = [leo if p == f else lv.fleo[p] for p in range(self.n)]
        lx.fep = [broker_epoch if p == f else lv.fep[p] for p in range(self.n)]

    def copy_next_record(self, f: int, ld: int, offset: Any) -> None:
        o, x, y, lv, log = self.o, self.w.b[f], self.v.b[f], self.v.b[ld], self.sym.z.log
        more = offset < lv.llen
        x.lep = o.store(y.lep, y.llen, o.ite(more, o.sel(lv.lep, y.llen), o.sel(y.lep, y.llen)))
        x.lval = o.store(y.lval, y.llen, o.ite(more, o.sel(lv.lval, y.llen), o.sel(y.lval, y.llen)))
        x.llen = o.ite(more, y.llen + 1, y.llen)
        if log is not None:
            self.require(o.implies(more, y.llen < log))

    def next_log_end(self, f: int) -> Any:
        return self.w.b[f].llen

    # -- broker sets (lists of Booleans) -------------------------------------------------------

    @staticmethod
    def member(bits: list, f: int) -> Any:
        return bits[f]

    @staticmethod
    def set_of(bits: list) -> list:
        return list(bits)

    def union(self, a: list, b: list) -> list:
        return [self.o.or_(x, y) for x, y in zip(a, b, strict=True)]

    def same_set(self, a: list, b: list) -> Any:
        return self.o.and_(*(x == y for x, y in zip(a, b, strict=True)))

    def loses(self, a: list, b: list) -> Any:
        return self.o.or_(*(self.o.and_(x, self.o.not_(y)) for x, y in zip(a, b, strict=True)))

    def is_replica(self, b: int, f: int) -> Any:
        return self.v.b[b].has_md  # every broker is a replica (reassignment is refused)

    @staticmethod
    def ids(bits: list) -> None:
        return None  # what the action shows: not part of the relation

    def follower_leo(self, b: int, f: int) -> Any:
        return self.v.b[b].fleo[f]

    def follower_epoch(self, b: int, f: int) -> Any:
        return self.v.b[b].fep[f]

    def put_ap_request(self, b: int, proposed: list, epochs: list) -> None:
        x = self.w.b[b]
        x.ap_phase, x.ap_isr, x.ap_ep = AP_REQUEST, list(proposed), list(epochs)

    def ap_epoch(self, b: int, f: int) -> Any:
        return self.v.b[b].ap_ep[f]

    def put_ap_phase(self, b: int, phase: int) -> None:
        self.w.b[b].ap_phase = phase

    def controller(self, name: str) -> Any:
        o, v = self.o, self.v
        i = v.mlen - 1
        if name in ("isr", "elr"):
            return [o.sel(m, i) for m in (v.m_isr if name == "isr" else v.m_elr)]
        if name == "replicas":
            return list(self.sym.replicas)
        arr = {"leader": v.m_leader, "leader_epoch": v.m_le, "partition_epoch": v.m_pe}[name]
        return o.sel(arr, i)

    def change_partition(self, leader: Any, leader_epoch: Any, isr: list, elr: list, when: Any) -> None:
        o, sym = self.o, self.sym
        self.require(sym.append(o, self.v, self.w, sym.cur(o, self.v), when, leader, leader_epoch, list(isr),
                                list(elr)))

    def update_elr(self, isr: list, elr: list, proposed: list, replicas: list) -> list:
        return rules.update_elr(self.o, self.gen, self.config.min_isr, isr, elr, proposed, replicas)

    def isr_after_fencing(self, isr: list, b: int) -> list:
        return rules.isr_after_fencing(self.o, self.gen, isr, b)

    def candidates(self, isr: list, elr: list, unfenced: list) -> list:
        return rules.candidates(self.o, self.gen, isr, elr, unfenced)

    def difference(self, a: list, b: list) -> list:
        return [self.o.and_(x, self.o.not_(y)) for x, y in zip(a, b, strict=True)]

    def completes_reassignment(self, b: int) -> Any:
        raise AssertionError("reassignment has no symbolic form (refused by name)")

    reassignment_completions = completes_reassignment

    def metadata_length(self) -> Any:
        return self.v.mlen

    @staticmethod
    def stale_requests(b: int) -> Iterator[tuple[Any, Any]]:
        """None: the symbolic form refuses the configurations that have them (``_requests``)."""
        return iter(())

    def metadata_records(self, b: int) -> Iterator[tuple[Any, Any]]:
        off = self.o.choose(self.v.b[b].md_off, self.v.mlen, "md_offset")
        yield off, off

    def record(self, off: Any, name: str) -> Any:
        o, v = self.o, self.v
        if name == "isr":
            return [o.sel(m, off) for m in v.m_isr]
        if name == "replicas":
            return list(self.sym.replicas)
        return o.sel({"leader": v.m_leader, "leader_epoch": v.m_le, "partition_epoch": v.m_pe}[name], off)

    def keep_followers(self, b: int, isr: list, was_leader: Any) -> None:
        o, x, y = self.o, self.w.b[b], self.v.b[b]
        x.fleo = [o.ite(o.and_(was_leader, isr[f]), y.fleo[f], NIL) for f in range(self.n)]
        x.fep = [o.ite(o.and_(was_leader, isr[f]), y.fep[f], 0) for f in range(self.n)]

    def put(self, b: int, name: str, value: Any) -> None:
        x = self.w.b[b]
        if name == "md_replicas":  # every broker is a replica, or (right after registering) none
            x.has_md = self.o.or_(*value)
        elif name == "c_unfenced":  # written as 0 or 1
            x.unf = self.o.true if value else self.o.false
        elif name == "alter_partition":  # a description only ever empties it
            x.ap_phase, x.ap_isr, x.ap_ep = 0, [self.o.false] * self.n, [0] * self.n
        else:
            setattr(x, FIELD[name], list(value) if isinstance(value, list) else value)

    def gput(self, name: str, value: Any) -> None:
        setattr(self.w, GLOBAL[name], value)

    def emit(self, cls: type, *args: Any) -> None:
        if self.result is not None:
            raise AssertionError(f"{cls.__name__}: a description emits at most once per instance")
        self.result = (self.o.and_(*self.guards), self.w)


def derived_steps(sym: Any, name: str, b: int) -> list[SymStep]:
    """The ``SymStep`` values of described step ``name`` for acting broker ``b``: one per choice of
    its cases, in their order (``sym``: the configuration's ``symbolic.steps.KraftSteps``, whose
    metadata log's encoding (``append``) and blanked leadership the reader uses)."""
    config = sym.c
    d: Described = steps_of(config.gen)[name]
    names = tuple(d.cases)

    def instance(pinned: dict[str, Any]) -> Any:
        def fn(o: Any, v: KraftVars) -> tuple[Any, Any]:
            x = KraftReader(o, v, sym, pinned)
            try:
                d.fn(x, b)
            except _Off:
                return o.false, None
            return x.result if x.result is not None else (o.false, None)
        return fn

    choices = product(*(tuple(d.cases[c](config, b)) for c in names))
    return [SymStep(d.label, instance(dict(zip(names, values, strict=True))), (b, *values)) for values in choices]
