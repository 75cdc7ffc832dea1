"""The rules where the KRaft generations differ, written once against the operations interface.

Each rule takes broker sets as lists of Booleans (one per broker) and the generation
(``isrcheck.model.kraft.generations``), and is read two ways: the explicit steps
(``controller.py``, ``replica.py``) evaluate it with ``ConcreteOps`` on the bits of a mask, once per
mask combination (memoised tables, so the hot path looks a result up as it computed one before),
and the symbolic steps (``symbolic/steps.py``) evaluate it on z3 terms. A change of one of these
rules is a change of this file only.

- ``update_elr``: KIP-966's ``UpdateElr`` (the ELR gains the members the ISR loses while it is below
  min.insync.replicas, and empties once it has them); 3.5 has no ELR;
- ``last_known_elr``: KIP-966's last known ELR of a partition change;
- ``candidates`` / ``leader_may_stay``: who ``MaybeUpdatePartitionOnBrokerChange`` may elect (3.5:
  unfenced ISR members; KIP-966: ISR members, else unfenced ELR members) and whether the leader
  keeps its place (3.5: in the ISR and unfenced; KIP-966: in the ISR);
- ``isr_after_fencing``: ``HandleBrokerFenced``'s ISR (3.5: never below one member, the last replica
  standing; KIP-966: without the broker);
- ``hw_isr_ok``: the ISR condition of ``CanAdvanceHwm`` (KIP-966: at least min.insync.replicas).

Abstracted away: nothing; these are the specs' functions over sets of brokers.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from isrcheck.explorer.symbolic.concrete import ConcreteOps

from .generations import KraftGeneration

Bits = Sequence[Any]


def at_least(o: Any, bits: Bits, m: int) -> Any:
    """At least ``m`` of ``bits`` hold (a disjunction of subsets: the broker count is small)."""
    if m <= 0:
        return o.true
    return o.or_(*(o.and_(*c) for c in combinations(bits, m)))


def update_elr(o: Any, gen: KraftGeneration, min_isr: int, isr: Bits, elr: Bits, proposed: Bits,
               replicas: Bits) -> list:
    if not gen.elr:
        return [o.false] * len(isr)
    full = at_least(o, proposed, min_isr)
    return [o.and_(o.not_(full), replicas[j], o.or_(elr[j], o.and_(isr[j], o.not_(proposed[j]))))
            for j in range(len(isr))]


def last_known_elr(o: Any, gen: KraftGeneration, min_isr: int, lk: Bits, elr: Bits, new_isr: Bits,
                   new_elr: Bits, replicas: Bits) -> list:
    if not gen.elr:
        return [o.false] * len(lk)
    low = o.not_(at_least(o, new_isr, min_isr))
    return [o.and_(low, o.or_(lk[j], o.and_(replicas[j], elr[j], o.not_(new_elr[j])))) for j in range(len(lk))]


def isr_after_fencing(o: Any, gen: KraftGeneration, isr: Bits, b: int) -> list:
    if not gen.isr_floor_one:
        return [o.false if j == b else isr[j] for j in range(len(isr))]
    last = o.and_(at_least(o, isr, 1), o.not_(at_least(o, isr, 2)))
    return [o.and_(isr[j], last) if j == b else isr[j] for j in range(len(isr))]


def candidates(o: Any, gen: KraftGeneration, new_isr: Bits, new_elr: Bits, unfenced: Bits) -> list:
    r = range(len(new_isr))
    if not gen.elr:
        return [o.and_(new_isr[j], unfenced[j]) for j in r]
    any_isr = o.or_(*new_isr)
    return [o.ite(any_isr, new_isr[j], o.and_(new_elr[j], unfenced[j])) for j in r]


def leader_may_stay(o: Any, gen: KraftGeneration, in_isr: Any, unfenced: Any) -> Any:
    return in_isr if gen.elr else o.and_(in_isr, unfenced)


def hw_isr_ok(o: Any, gen: KraftGeneration, min_isr: int, isr: Bits) -> Any:
    return at_least(o, isr, min_isr) if gen.hw_needs_min_isr else o.true


class MaskRules:
    """The rules above on bit masks of ``n`` brokers, each result memoised per argument masks (one
    dict per rule, keyed by the masks packed into one int: a lookup costs what the inline mask
    arithmetic it replaces cost)."""

    def __init__(self, gen: KraftGeneration, min_isr: int, n: int) -> None:
        self.gen, self.min_isr, self.n = gen, min_isr, n
        self.ops = ConcreteOps()
        self._elr: dict[int, int] = {}
        self._lk: dict[int, int] = {}
        self._fenced: dict[int, int] = {}
        self._cand: dict[int, tuple[int, ...]] = {}
        self._cand_set: dict[int, int] = {}

    def _bits(self, mask: int) -> list[bool]:
        return [bool(mask >> j & 1) for j in range(self.n)]

    @staticmethod
    def _mask(bits: Bits) -> int:
        return sum(1 << j for j, x in enumerate(bits) if x)

    def update_elr(self, isr: int, elr: int, proposed: int, replicas: int) -> int:
        n = self.n
        key = ((isr << n | elr) << n | proposed) << n | replicas
        got = self._elr.get(key)
        if got is None:
            b = self._bits
            got = self._elr[key] = self._mask(update_elr(self.ops, self.gen, self.min_isr, b(isr), b(elr),
                                                         b(proposed), b(replicas)))
        return got

    def last_known_elr(self, lk: int, elr: int, new_isr: int, new_elr: int, replicas: int) -> int:
        n = self.n
        key = (((lk << n | elr) << n | new_isr) << n | new_elr) << n | replicas
        got = self._lk.get(key)
        if got is None:
            b = self._bits
            got = self._lk[key] = self._mask(last_known_elr(self.ops, self.gen, self.min_isr, b(lk), b(elr),
                                                            b(new_isr), b(new_elr), b(replicas)))
        return got

    def isr_after_fencing(self, isr: int, b: int) -> int:
        key = isr << self.n | b
        got = self._fenced.get(key)
        if got is None:
            got = self._fenced[key] = self._mask(isr_after_fencing(self.ops, self.gen, self._bits(isr), b))
        return got

    def candidates(self, new_isr: int, new_elr: int, unfenced: int) -> tuple[int, ...]:
        n = self.n
        key = (new_isr << n | new_elr) << n | unfenced
        got = self._cand.get(key)
        if got is None:
            b = self._bits
            got = self._cand[key] = tuple(j for j, x in enumerate(candidates(
                self.ops, self.gen, b(new_isr), b(new_elr), b(unfenced))) if x)
        return got

    def candidate_set(self, new_isr: int, new_elr: int, unfenced: int) -> int:
        """``candidates`` as a mask."""
        n = self.n
        key = (new_isr << n | new_elr) << n | unfenced
        got = self._cand_set.get(key)
        if got is None:
            got = self._cand_set[key] = sum(1 << j for j in self.candidates(new_isr, new_elr, unfenced))
        return got

    def leader_may_stay(self) -> tuple[bool, ...]:
        """``leader_may_stay`` indexed by ``in_isr * 2 + unfenced``."""
        return tuple(bool(leader_may_stay(self.ops, self.gen, bool(k >> 1), bool(k & 1))) for k in range(4))

    def hw_isr_ok(self) -> tuple[bool, ...]:
        """``hw_isr_ok`` of every ISR mask, as a tuple indexed by the mask."""
        return tuple(bool(hw_isr_ok(self.ops, self.gen, self.min_isr, self._bits(m))) for m in range(1 << self.n))
