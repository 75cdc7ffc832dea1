"""Expression backends: one transition relation, written once, read three ways.

A symbolic model writes its steps against an ``Ops`` object instead of against z3 directly
(``ops.and_(...)``, ``ops.ite(...)``, ``ops.sel(array, index)``, ``ops.forall(lo, hi, body)``,
``ops.copy_range(dst, src, lo, hi)``: a slice of one array copied into another),
so the *same code* is

- ``ConcreteOps`` (``isrcheck.explorer.symbolic.concrete``, free of z3): evaluated on plain
  Python ints and bools (arrays are tuples). This is how the equivalence test enumerates the
  symbolic relation's successors of a concrete state quickly: existential choices
  (``ops.choose``) are enumerated by re-running the step (``all_runs``);
- ``BoundedZ3Ops``: z3 terms over quantifier-free integer arithmetic; arrays are Python lists of
  a fixed size (the model's bounds), indexed by if-then-else chains, quantifiers over offsets
  unrolled. What bounded model checking uses (fast, and BMC then explores what BFS explores);
- ``UnboundedZ3Ops``: z3 terms with arrays from Int and quantifiers over offsets; nothing is
  bounded except what the model keeps finite (e.g. the number of replicas). What induction uses.

Python's ``and``/``or``/``not``/``if`` must never be applied to terms: use the ops. Comparisons
and arithmetic (``==``, ``<``, ``+``) work on both ints and z3 terms and are used directly.

Abstracted away: sorts other than Int and Bool (a model encodes its values as ints).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import z3

from .concrete import ConcreteOps, Disabled, Ops

STEP_BITS = 10  # bit-vector width of step numbers in BoundedZ3Ops (at most 511 step instances)

__all__ = ["STEP_BITS", "BoundedZ3Ops", "ConcreteOps", "Disabled", "Ops", "UnboundedZ3Ops", "Z3Ops"]


class Z3Ops(Ops):
    """What both z3 backends share: Boolean connectives and fresh names."""

    true, false = z3.BoolVal(True), z3.BoolVal(False)
    _ids = itertools.count()

    def __init__(self, ctx_prefix: str = "") -> None:
        super().__init__()
        self.prefix = ctx_prefix

    def fresh(self, name: str) -> str:
        return f"{self.prefix}{name}!{next(self._ids)}"

    def int_var(self, name: str) -> Any:
        return z3.Int(name)

    def step_var(self, name: str) -> Any:
        return z3.Int(name)

    def bool_var(self, name: str) -> Any:
        return z3.Bool(name)

    def and_(self, *xs: Any) -> Any:
        xs = tuple(x for x in xs if not (x is True or (z3.is_true(x) if z3.is_expr(x) else False)))
        if any(x is False for x in xs):
            return self.false
        if not xs:
            return self.true
        return z3.And(*(_b(x) for x in xs)) if len(xs) != 1 else _b(xs[0])

    def or_(self, *xs: Any) -> Any:
        if any(x is True for x in xs):
            return self.true
        xs = tuple(_b(x) for x in xs if x is not False)
        return z3.Or(*xs) if xs else self.false

    def not_(self, x: Any) -> Any:
        return z3.Not(_b(x))

    def implies(self, a: Any, b: Any) -> Any:
        return z3.Implies(_b(a), _b(b))

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if isinstance(a, list):
            return [self.ite(c, x, y) for x, y in zip(a, b, strict=True)]
        return z3.If(_b(c), a, b)

    def is_false(self, x: Any) -> bool:
        return x is False or (z3.is_expr(x) and z3.is_false(x))

    def choose(self, lo: Any, hi: Any, name: str = "choice", size: int | None = None) -> Any:
        x = z3.Int(self.fresh(name))
        self.side.append(z3.And(lo <= x, x < hi))
        return x


def _b(x: Any) -> Any:
    return z3.BoolVal(x) if isinstance(x, bool) else x


def _within(o: Any, lo: Any, hi: Any) -> list:
    """``lo <= o < hi``, without the bounds that are None (``UnboundedZ3Ops``' whole domain)."""
    return [c for c in (None if lo is None else lo <= o, None if hi is None else o < hi) if c is not None]


class BoundedZ3Ops(Z3Ops):
    """Quantifier-free: arrays are lists of ``size`` terms, quantifiers over ``[lo, hi)`` are
    conjunctions over ``range(size)``. Reads past ``size`` give 0 (never reached under the
    model's bounds, which its guards state). A choice over ``[lo, hi)`` within ``size`` is
    unrolled: each value is its own branch (``all_runs``) guarded by ``lo <= value < hi``, so
    array reads at the chosen index need no if-then-else chain."""

    enumerates = False  # measured: fresh choice variables solve faster than one branch per value
    # The step instances of one transition share their choice variables: only the instance the
    # transition takes constrains them (its guard and side constraints hold under ``act == i``), so
    # the n-th choice of every instance can be one variable, and reads at it (``sel(req_ld, e)``)
    # one term.
    share_choices = True

    def __init__(self, ctx_prefix: str = "", width: int | None = 8) -> None:
        super().__init__(ctx_prefix)
        self.width = width  # ints as signed bit-vectors of this width (None: mathematical Ints)
        self.script: list[int] = []
        self.chosen: list[tuple[int, int, int]] = []
        self._pool: list[Any] = []  # this transition's choice variables
        self._used = 0  # how many of them the current step instance has taken

    def begin_transition(self) -> None:
        self._pool = []

    def begin_step(self) -> None:
        self._used = 0

    def choose(self, lo: Any, hi: Any, name: str = "choice", size: int | None = None) -> Any:
        if size is None or not self.enumerates:
            if self.share_choices and self._used < len(self._pool):
                x = self._pool[self._used]
            else:
                x = self.int_var(self.fresh(name))
                self._pool.append(x)
            self._used += 1
            self.side.append(z3.And(lo <= x, x < hi))
            return x
        pos = len(self.chosen)
        value = self.script[pos] if pos < len(self.script) else 0
        self.chosen.append((value, 0, size))
        self.side.append(z3.And(lo <= value, value < hi))
        return value

    all_runs = ConcreteOps.all_runs

    def int_var(self, name: str) -> Any:
        return z3.BitVec(name, self.width) if self.width else z3.Int(name)

    def step_var(self, name: str) -> Any:
        """The number of the step a transition takes (up to 2**(STEP_BITS-1) steps)."""
        return z3.BitVec(name, STEP_BITS) if self.width else z3.Int(name)

    def int_array(self, name: str, size: int | None) -> list:
        assert size is not None, "bounded arrays need a size"
        return [self.int_var(f"{name}[{o}]") for o in range(size)]

    def _int(self, x: int) -> Any:
        return z3.BitVecVal(x, self.width) if self.width else z3.IntVal(x)

    def bool_array(self, name: str, size: int | None) -> list:
        assert size is not None, "bounded arrays need a size"
        return [z3.Bool(f"{name}[{o}]") for o in range(size)]

    def sel(self, arr: list, i: Any) -> Any:
        if isinstance(i, int):
            if 0 <= i < len(arr):
                return arr[i]
            return self.false if arr and z3.is_bool(arr[0]) else self._int(0)
        out = arr[-1]
        for o in range(len(arr) - 2, -1, -1):
            out = z3.If(i == o, arr[o], out)
        return out

    def store(self, arr: list, i: Any, v: Any) -> list:
        if isinstance(i, int):
            return [v if o == i else a for o, a in enumerate(arr)]
        return [z3.If(i == o, v, a) for o, a in enumerate(arr)]

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if type(a) is int and type(b) is int:  # two constants: of the bit-vector sort, not z3's Int
            return z3.If(_b(c), self._int(a), self._int(b))
        return super().ite(c, a, b)

    def copy_range(self, dst: list, src: list, lo: Any, hi: Any, size: int | None = None) -> list:
        """``dst`` with ``src``'s values at offsets ``lo..hi-1``."""
        return [z3.If(z3.And(lo <= o, o < hi), s, d) for o, (d, s) in enumerate(zip(dst, src, strict=True))]

    def forall(self, lo: Any, hi: Any, body: Callable[[int], Any], size: int | None = None) -> Any:
        assert size is not None
        return self.and_(*(z3.Implies(z3.And(lo <= o, o < hi), _b(body(o))) for o in range(size)))

    def exists(self, lo: Any, hi: Any, body: Callable[[int], Any], size: int | None = None) -> Any:
        assert size is not None
        return self.or_(*(z3.And(lo <= o, o < hi, _b(body(o))) for o in range(size)))

    def last_such(self, hi: Any, pred: Callable[[int], Any], size: int | None = None,
                  hints: Sequence[Any] = ()) -> Any:
        assert size is not None
        out: Any = self._int(0)
        for o in range(size):  # the largest matching offset wins: it is tested last, outermost
            out = z3.If(z3.And(o < hi, _b(pred(o))), o + 1, out)
        return out

    def first_such(self, lo: Any, hi: Any, pred: Callable[[int], Any], size: int | None = None) -> Any:
        assert size is not None
        out: Any = self._int(-1)
        for o in range(size - 1, -1, -1):
            out = z3.If(z3.And(lo <= o, o < hi, _b(pred(o))), o, out)
        return out


class UnboundedZ3Ops(Z3Ops):
    """Arrays from Int (z3's theory of arrays) and quantifiers over offsets: nothing bounded."""

    def int_array(self, name: str, size: int | None = None) -> Any:
        return z3.Array(name, z3.IntSort(), z3.IntSort())

    def bool_array(self, name: str, size: int | None = None) -> Any:
        return z3.Array(name, z3.IntSort(), z3.BoolSort())

    def sel(self, arr: Any, i: Any) -> Any:
        return z3.Select(arr, i)

    def store(self, arr: Any, i: Any, v: Any) -> Any:
        return z3.Store(arr, i, v)

    def copy_range(self, dst: Any, src: Any, lo: Any, hi: Any, size: int | None = None) -> Any:
        """``dst`` with ``src``'s values at offsets ``lo..hi-1`` (an array lambda)."""
        o = z3.Int(self.fresh("o"))
        return z3.Lambda([o], z3.If(z3.And(lo <= o, o < hi), z3.Select(src, o), z3.Select(dst, o)))

    def forall(self, lo: Any, hi: Any, body: Callable[[Any], Any], size: int | None = None) -> Any:
        """Over ``[lo, hi)``; a bound that is None is left out (here only: an array's whole domain)."""
        o = z3.Int(self.fresh("o"))
        within = _within(o, lo, hi)
        return z3.ForAll([o], z3.Implies(z3.And(*within), _b(body(o))) if within else _b(body(o)))

    def exists(self, lo: Any, hi: Any, body: Callable[[Any], Any], size: int | None = None) -> Any:
        o = z3.Int(self.fresh("o"))
        return z3.Exists([o], z3.And(*_within(o, lo, hi), _b(body(o))))

    def last_such(self, hi: Any, pred: Callable[[Any], Any], size: int | None = None,
                  hints: Sequence[Any] = ()) -> Any:
        """A fresh ``x`` with ``pred(x - 1)`` (or ``x == 0``) and no ``pred`` in ``[x, hi)``. For
        each of the ``hints`` ``h`` the quantifier's instance at ``h - 1`` is added as well: it is
        implied (so the relation is the same), but E-matching would not find that instance when the
        term ``h - 1`` occurs nowhere else, and z3 then searches long for it (the KIP-279
        truncation offset against a leader's HW: without the hint, WeakIsr's proof times out)."""
        x = z3.Int(self.fresh("last"))
        none_from = self.forall(x, hi, lambda o: z3.Not(_b(pred(o))))
        instances = [z3.Implies(z3.And(x <= h - 1, h - 1 < hi), z3.Not(_b(pred(h - 1)))) for h in hints]
        self.side.append(z3.And(none_from, z3.Or(x == 0, z3.And(0 < x, x <= hi, _b(pred(x - 1)))), *instances))
        return x

    def first_such(self, lo: Any, hi: Any, pred: Callable[[Any], Any], size: int | None = None) -> Any:
        x = z3.Int(self.fresh("first"))
        nothing = self.forall(lo, hi, lambda o: z3.Not(_b(pred(o))))
        before = self.forall(lo, x, lambda o: z3.Not(_b(pred(o))))
        self.side.append(z3.Or(z3.And(x == -1, nothing), z3.And(lo <= x, x < hi, _b(pred(x)), before)))
        return x
