"""The operations interface (``Ops``) and its concrete backend, without z3.

``ConcreteOps`` evaluates a relation written against ``Ops`` on plain Python ints, bools and tuples.
It lives apart from the z3 backends (``isrcheck.explorer.symbolic.ops``, which re-exports it) so that
code run on the explicit model's hot path at build time (the log rules of
``isrcheck.model.steps.rules``, evaluated once per pair of logs to fill its tables) does not
import z3.

Abstracted away: sorts other than Int and Bool (a model encodes its values as ints).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class Disabled(Exception):
    """Raised by ``ConcreteOps.choose`` when the range is empty: the step is not enabled."""


class Ops:
    """The operations a symbolic model may use; see the module docstring."""

    concrete = False
    enumerates = False  # choices are enumerated by re-running a step (``all_runs``), not fresh variables

    def __init__(self) -> None:
        self.side: list[Any] = []  # constraints defining fresh values (``choose``, ``last_such``)

    def take_side(self) -> list[Any]:
        side, self.side = self.side, []
        return side

    def begin_transition(self) -> None:
        """A new transition's step instances are about to be built (see ``BoundedZ3Ops.choose``)."""

    def begin_step(self) -> None:
        """The next step instance of the transition is about to be built."""

    # Each backend implements the following.
    def int_var(self, name: str) -> Any: raise NotImplementedError  # noqa: E704
    def bool_var(self, name: str) -> Any: raise NotImplementedError  # noqa: E704
    def int_array(self, name: str, size: int | None) -> Any: raise NotImplementedError  # noqa: E704
    def bool_array(self, name: str, size: int | None) -> Any: raise NotImplementedError  # noqa: E704


class ConcreteOps(Ops):
    """Plain Python values; arrays are tuples (a read past the end gives 0: don't-care contents)."""

    concrete = True
    enumerates = True
    true, false = True, False

    def __init__(self) -> None:
        super().__init__()
        self.script: list[int] = []
        self.chosen: list[tuple[int, int, int]] = []  # (value, lo, hi) per choice point

    def and_(self, *xs: Any) -> bool:
        return all(xs)

    def or_(self, *xs: Any) -> bool:
        return any(xs)

    def not_(self, x: Any) -> bool:
        return not x

    def implies(self, a: Any, b: Any) -> bool:
        return (not a) or bool(b)

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        return a if c else b

    def is_false(self, x: Any) -> bool:
        return not x

    def sel(self, arr: Sequence, i: int) -> Any:
        return arr[i] if 0 <= i < len(arr) else 0

    def store(self, arr: tuple, i: int, v: Any) -> tuple:
        if i < len(arr):
            return arr[:i] + (v,) + arr[i + 1:]
        return arr + (0,) * (i - len(arr)) + (v,)

    def copy_range(self, dst: tuple, src: Sequence, lo: int, hi: int, size: int | None = None) -> tuple:
        """``dst`` with ``src``'s values at offsets ``lo..hi-1`` (a slice of a log appended elsewhere)."""
        for o in range(lo, hi):
            dst = self.store(dst, o, self.sel(src, o))
        return dst

    def forall(self, lo: int, hi: int, body: Callable[[int], Any], size: int | None = None) -> bool:
        return all(body(o) for o in range(lo, hi))

    def exists(self, lo: int, hi: int, body: Callable[[int], Any], size: int | None = None) -> bool:
        return any(body(o) for o in range(lo, hi))

    def last_such(self, hi: int, pred: Callable[[int], Any], size: int | None = None,
                  hints: Sequence[Any] = ()) -> int:
        """One past the largest ``o < hi`` with ``pred(o)``, or 0. ``hints``: offsets ``h`` whose
        ``h - 1`` the answer is worth comparing with (see ``UnboundedZ3Ops.last_such``); the
        concrete and bounded backends are exact without them."""
        for o in range(hi - 1, -1, -1):
            if pred(o):
                return o + 1
        return 0

    def first_such(self, lo: int, hi: int, pred: Callable[[int], Any], size: int | None = None) -> int:
        """The smallest ``o`` in ``[lo, hi)`` with ``pred(o)``, or -1."""
        for o in range(lo, hi):
            if pred(o):
                return o
        return -1

    def choose(self, lo: int, hi: int, name: str = "choice", size: int | None = None) -> int:
        """Some value in ``[lo, hi)``: the next one of the current run's script (see ``all_runs``)."""
        pos = len(self.chosen)
        value = self.script[pos] if pos < len(self.script) else lo
        self.chosen.append((value, lo, hi))
        if not lo <= value < hi:
            raise Disabled
        return value

    def all_runs(self, fn: Callable[[], Any]) -> list[Any]:
        """Every result of ``fn`` over every combination of its ``choose`` values (depth first)."""
        out = []
        stack: list[list[int]] = [[]]
        while stack:
            self.script = stack.pop()
            self.chosen = []
            try:
                out.append(fn())
            except Disabled:
                pass
            fixed = len(self.script)
            for p in range(fixed, len(self.chosen)):
                value, lo, hi = self.chosen[p]
                prefix = [c[0] for c in self.chosen[:p]]
                for v in range(max(lo, value + 1), hi):
                    stack.append(prefix + [v])
        self.script, self.chosen = [], []
        return out
