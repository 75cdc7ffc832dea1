"""The classic steps and the options' steps as symbolic relations, derived from their one
description (``isrcheck.model.steps.described``, ``failures``): each step function is run on the
state variables of an ``Ops`` backend (z3 terms, bounded or unbounded, or concrete values), once
per choice of the replicas it names (``Described.who``) and of its build-time cases
(``Described.cases``: the kind of a stop), giving that ``SymStep``'s ``(guard, next variables)``.

How the description's operations read here: a loop over replicas takes the instance's replica;
a replica read from the state (``replica_named``: the quorum leader, a follower's leader) is the
instance's replica under the guard that the state names it; a loop over LeaderAndIsr requests is
an existential choice of an epoch (``ops.choose`` over the epochs sent so far, so epochs stay
unbounded) whose request names the instance's leader; rules over two logs are the functions of
``isrcheck.model.steps.rules`` and ``truncation`` on symbolic logs; a replica set is a list of
Booleans, as are the stopped brokers. A variable a step does not update stays the very term it
was (``relation.same_term``). Without bounds (``prove``) the same reader runs the options' steps:
the acknowledged ids and the served offsets are arrays (``ack``, ``served``, ``put("served")``
store into them), a consumer's offset is a choice below the HW (``offsets``) and the served
ghost's CONFLICT is ``vars.UNBOUNDED_CONFLICT``.

Abstracted away: as in the explicit steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import product
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.model.encoding.fields import served_conflict
from isrcheck.model.steps.described import Described, StepOptions
from isrcheck.model.steps.rules import CAUGHT_UP, Log
from isrcheck.model.steps.truncation import TRUNCATE_TO

from .durability import popcount_at_least
from .vars import UNBOUNDED_CONFLICT, KafkaVars

# The steps whose action (what traces print) is not spelled as their TLA+ action (a crash of
# either kind is a BrokerCrash), and the action tables that name their own (a stop's kinds).
LABEL = {"BecomeFollowerAndTruncateTo": "BecomeFollowerAndTruncate", "BrokerStop": "BrokerCrash"}
ACTS_LABEL = {"controlled": "ControlledShutdown"}


class _Off(Exception):
    """A guard of this instance is plainly false: the step is not enabled."""


class _Choice(Exception):
    """The description makes a nested choice (``Described.nested``) the instance has not pinned."""

    def __init__(self, name: str, values: tuple, replica: bool) -> None:
        super().__init__(name)
        self.name, self.values, self.replica = name, values, replica


class Reader:
    """The operations of ``isrcheck.model.steps.described`` on symbolic variables ``v`` for one
    step instance (``pinned``: its replicas by name)."""

    def __init__(self, o: Any, v: KafkaVars, pinned: dict[str, int], n: int, gen: Any, opt: StepOptions,
                 bounds: Any, epochs: int | None) -> None:
        self.o, self.v, self.pinned, self.n, self.gen, self.opt = o, v, pinned, n, gen, opt
        self.log_size, self.max_records, self.max_leader_epoch = bounds.log_size, bounds.max_records, \
            bounds.max_leader_epoch
        self.epochs = epochs
        # Without bounds record ids are unbounded too: the conflict mark is one no id + 1 takes.
        self.served_conflict = UNBOUNDED_CONFLICT if self.max_records is None else served_conflict(self.max_records)
        self.ql, self.qisr, self.nrid, self.nreq = v.ql, v.qisr, v.nrid, v.nreq
        self.stopped, self.crashes, self.az_failures = v.dead, v.crashes, v.az_failures
        self.w = v.copy()
        self.guards: list[Any] = []
        self.result: tuple[Any, Any] | None = None
        self.acts: str | None = None

    # -- control -------------------------------------------------------------------------------

    def _pick(self, name: str, values: Any, replica: bool = False) -> Any:
        if name not in self.pinned:
            raise _Choice(name, tuple(values), replica)
        return self.pinned[name]

    def replicas(self, name: str) -> Iterator[int]:
        yield self._pick(name, range(self.n), replica=True)

    def requests(self, name: str) -> Iterator[tuple[Any, int, list]]:
        o, v = self.o, self.v
        e = o.choose(0, v.nreq, "epoch", self.epochs)
        lead = self.pinned[name]
        self.require(o.sel(v.req_ld, e) == lead)
        yield e, lead, [o.sel(v.req_isr[j], e) for j in range(self.n)]

    def cases(self, name: str, values: Any) -> Iterator[Any]:
        yield self._pick(name, values)

    def offsets(self, name: str, hi: Any) -> Iterator[Any]:
        if self.log_size is None:  # unbounded: the offset is a choice, not one instance per offset
            yield self.o.choose(0, hi, name)
            return
        for off in self.cases(name, range(self.log_size)):
            self.require(off < hi)
            yield off

    def require(self, *conds: Any) -> None:
        for c in conds:
            if c is True:
                continue
            if c is False or self.o.is_false(c):
                raise _Off
            self.guards.append(c)

    def let(self, v: Any) -> Any:
        return v

    def replica_named(self, name: str, v: Any) -> Iterator[int]:
        r = self.pinned[name]
        self.require(v == r)
        yield r

    # -- logic -----------------------------------------------------------------------------------

    def and_(self, *xs: Any) -> Any: return self.o.and_(*xs)  # noqa: E704
    def or_(self, *xs: Any) -> Any: return self.o.or_(*xs)  # noqa: E704
    def not_(self, x: Any) -> Any: return self.o.not_(x)  # noqa: E704
    def ite(self, c: Any, a: Any, b: Any) -> Any: return self.o.ite(c, a, b)  # noqa: E704

    def min(self, a: Any, b: Any) -> Any:
        return self.o.ite(a < b, a, b)

    def every(self, fn: Callable[[int], Any]) -> Any:
        return self.o.and_(*(fn(r) for r in range(self.n)))

    # -- the state -------------------------------------------------------------------------------

    def hw(self, r: int) -> Any: return self.v.hw[r]  # noqa: E704
    def ep(self, r: int) -> Any: return self.v.ep[r]  # noqa: E704
    def ld(self, r: int) -> Any: return self.v.ld[r]  # noqa: E704
    def isr(self, r: int) -> list: return self.v.isr[r]  # noqa: E704
    def log_end(self, r: int) -> Any: return self.v.length[r]  # noqa: E704
    def rec_epoch(self, r: int, k: Any) -> Any: return self.o.sel(self.v.rep[r], k)  # noqa: E704
    def rec_id(self, r: int, k: Any) -> Any: return self.o.sel(self.v.rid[r], k)  # noqa: E704
    def flushed(self, r: int) -> Any: return self.v.flushed[r]  # noqa: E704
    def served(self, off: Any) -> Any:
        return self.v.served[off] if isinstance(self.v.served, list) else self.o.sel(self.v.served, off)

    def last_epoch(self, r: int) -> Any:
        v = self.v
        return self.o.ite(v.length[r] == 0, -1, self.o.sel(v.rep[r], v.length[r] - 1))

    def running(self, r: int) -> Any:
        return self.o.not_(self.v.dead[r]) if self.v.dead else True

    def _log(self, r: int) -> Log:
        return Log(self.v.length[r], self.v.rid[r], self.v.rep[r])

    def caught_up(self, rule: str, lead: int, f: int, end: Any) -> Any:
        return CAUGHT_UP[rule](self.o, self._log(lead), self._log(f), end, self.log_size)

    def truncation_offset(self, rule: str, lead: int, r: int) -> Any:
        v = self.v
        return TRUNCATE_TO[rule](self.o, self._log(lead), self._log(r), v.hw[r], self.log_size, tuple(v.hw))

    # -- replica sets ------------------------------------------------------------------------------

    def has(self, s: list, r: int) -> Any: return s[r]  # noqa: E704
    def with_(self, s: list, r: int) -> list: return [True if j == r else x for j, x in enumerate(s)]  # noqa: E704
    def without(self, s: list, r: int) -> list: return [False if j == r else x for j, x in enumerate(s)]  # noqa: E704

    def only(self, s: list, r: int) -> Any:
        return self.o.and_(s[r], *(self.o.not_(x) for j, x in enumerate(s) if j != r))

    def empty(self, s: list) -> Any:
        return self.o.and_(*(self.o.not_(x) for x in s))

    def single(self, r: int) -> list:
        return [j == r for j in range(self.n)]

    def subset(self, a: list, b: list) -> Any:
        return self.o.and_(*(self.o.implies(x, y) for x, y in zip(a, b, strict=True)))

    def at_least(self, s: list, m: int) -> Any:
        return popcount_at_least(self.o, s, m)

    def set_ite(self, c: Any, a: list, b: list) -> list:
        return [x if x is y else self.o.ite(c, x, y) for x, y in zip(a, b, strict=True)]

    # -- the next state ----------------------------------------------------------------------------

    def put(self, field: str, r: int | None, value: Any) -> None:
        w = self.w
        if field == "isr":
            w.isr[r] = list(value)
        elif field == "qisr":
            w.qisr = list(value)
        elif field == "stopped":
            w.dead = list(value)
        elif field == "requests":
            w.req_ld, w.req_isr, w.nreq = value
        elif field == "served" and not isinstance(w.served, list):  # unbounded: an array over offsets
            w.served = self.o.store(w.served, r, value)
        elif r is None:
            setattr(w, field, value)
        else:
            getattr(w, field)[r] = value

    def send_request(self, lead: Any, isr: list) -> None:
        self.put("requests", None, self.request(lead, isr))

    def request(self, lead: Any, isr: list, when: Any = True) -> tuple[Any, list, Any]:
        """The requests after one more (if ``when``): (leaders, ISRs, count)."""
        o, v = self.o, self.v
        req_ld = o.store(v.req_ld, v.nreq, lead)
        req_isr = [o.store(v.req_isr[j], v.nreq, isr[j]) for j in range(self.n)]
        if when is True:
            return req_ld, req_isr, v.nreq + 1
        return (o.ite(when, req_ld, v.req_ld), [o.ite(when, a, b) for a, b in zip(req_isr, v.req_isr, strict=True)],
                o.ite(when, v.nreq + 1, v.nreq))

    def append(self, r: int, rid: Any, epoch: Any) -> None:
        o, v, w = self.o, self.v, self.w
        k = v.length[r]
        w.rid[r] = o.store(v.rid[r], k, rid)
        w.rep[r] = o.store(v.rep[r], k, epoch)
        w.length[r] = k + 1

    def copy_next(self, f: int, lead: int) -> None:
        v = self.v
        k = v.length[f]
        self.append(f, self.o.sel(v.rid[lead], k), self.o.sel(v.rep[lead], k))

    def truncate(self, r: int, off: Any) -> None:
        o, v, w = self.o, self.v, self.w
        w.length[r] = off
        w.hw[r] = o.ite(off < v.hw[r], off, v.hw[r])
        if v.flushed and off is not v.flushed[r]:  # the recovery point never exceeds the log end
            w.flushed[r] = o.ite(off < v.flushed[r], off, v.flushed[r])

    def ack(self, rid: Any, when: Any = True) -> None:
        o, acked = self.o, self.v.acked
        if isinstance(acked, list):
            self.w.acked = [o.or_(a, o.and_(when, rid == x)) for x, a in enumerate(acked)]
        else:  # unbounded: an array over record ids
            self.w.acked = o.store(acked, rid, o.or_(o.sel(acked, rid), when))

    def emit(self, *idx: Any, acts: str | None = None) -> None:
        self.result = (self.o.and_(*self.guards), self.w)
        self.acts = acts


def derived_steps(d: Described, n: int, gen: Any, opt: StepOptions, bounds: Any,
                  epochs: int | None) -> list[SymStep]:
    """One ``SymStep`` per choice of the replicas and cases ``d.who`` (in ``product`` order), and,
    for a step with ``nested`` choices, per choice of those on each path that makes them."""

    def run(o: Any, v: KafkaVars, pinned: dict[str, int]) -> tuple[Any, Any]:
        x = Reader(o, v, pinned, n, gen, opt, bounds, epochs)
        try:
            d.fn(x)
        except _Off:
            return False, None
        return x.result if x.result is not None else (False, None)

    def instance(pinned: dict[str, int]) -> Callable[[Any, KafkaVars], tuple[Any, Any]]:
        return lambda o, v: run(o, v, pinned)

    label = LABEL.get(d.name, d.name)
    cases = dict(d.cases)
    domains = [getattr(opt, cases[name]) if name in cases else range(n) for name in d.who]
    combos = [dict(zip(d.who, combo, strict=True)) for combo in product(*domains)]

    def params(pinned: dict[str, Any], values: frozenset = frozenset()) -> tuple:
        # Symmetry breaking swaps the ints of an instance's params as replicas: a case that is a
        # number but no replica (a zone, an offset) is tagged with its name.
        return tuple((k, v) if (k in cases or k in values) and isinstance(v, int) else v for k, v in pinned.items())

    if not d.nested:
        return [SymStep(label, instance(pinned), params(pinned)) for pinned in combos]
    probe = _Probe(d, n, gen, opt, bounds, epochs)
    return [SymStep(ACTS_LABEL.get(acts, label), instance(pinned), params(pinned, values))
            for combo in combos for pinned, acts, values in probe.paths(combo)]


class _Probe:
    """Which nested choices each instance makes, found by running the description once per path on
    fresh unbounded variables (a guard plainly false at build time ends a path: it emits nothing)."""

    def __init__(self, d: Described, n: int, gen: Any, opt: StepOptions, bounds: Any, epochs: int | None) -> None:
        from isrcheck.explorer.symbolic.ops import UnboundedZ3Ops

        from .vars import Extras, make_vars

        self.d, self.n, self.gen, self.opt, self.bounds, self.epochs = d, n, gen, opt, bounds, epochs
        self.o = UnboundedZ3Ops("probe.")
        unbounded = bounds.log_size is None  # then the option fields over ids and offsets are arrays
        extras = Extras(stops=opt.stops, flushed=opt.flushes,
                        records=(None if unbounded else 1) if opt.acks != "none" else 0,
                        zones=bool(opt.max_az_failures),
                        served=bounds.log_size if opt.consumer_reads != "off" else 0)
        self.v = make_vars(self.o, "probe", n, None, None, extras)

    def paths(self, pinned: dict[str, Any], values: frozenset = frozenset()
              ) -> Iterator[tuple[dict[str, Any], str | None, frozenset]]:
        """Each completion of ``pinned`` that emits, with its action table and the names of its
        choices that are values, not replicas."""
        x = Reader(self.o, self.v, pinned, self.n, self.gen, self.opt, self.bounds, self.epochs)
        try:
            self.d.fn(x)
        except _Off:
            return
        except _Choice as c:
            if c.name not in self.d.nested:
                raise
            for value in c.values:
                yield from self.paths({**pinned, c.name: value}, values if c.replica else values | {c.name})
            return
        if x.result is not None:
            yield pinned, x.acts, values
