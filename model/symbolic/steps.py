"""The steps of ``KafkaReplication.tla`` and its generations as symbolic relations, one per
explicit step (``isrcheck.model.steps.controller``, ``isrcheck.model.steps.leader`` and
``isrcheck.model.steps.follower``, with the rules each generation reads from
``isrcheck.model.generations``: ``isrcheck.model.steps.rules`` and
``isrcheck.model.steps.truncation``), with the same enabling conditions.

Each builder returns ``SymStep`` values, one per choice of replicas (the number of replicas is
fixed, so "for every leader lead and follower f" is unrolled); a step's function maps the current
variables to ``(guard, next variables)``. The LeaderAndIsr request a replica acts on is an
existential choice (``ops.choose`` over the epochs sent so far), so epochs stay unbounded.
Bounds (``Bounds``) appear only as guards, exactly where the explicit model enforces them: with
bounds the relation is the explicit model's (bounded model checking explores what BFS explores);
without them it is the protocol with unbounded logs, record ids and epochs (proofs).

Abstracted away: as in the explicit steps (atomic fetches, no message loss beyond what the
growing request set covers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep

from .durability import CLASSIC, Durability, FailureSteps, popcount_at_least
from .vars import KafkaVars


@dataclass(frozen=True)
class Bounds:
    """The explicit model's bounds, as guards (None fields: unbounded)."""

    log_size: int | None = None
    max_records: int | None = None
    max_leader_epoch: int | None = None


class Steps:
    """Builders of symbolic steps for ``n`` replicas under ``bounds``."""

    def __init__(self, n: int, bounds: Bounds, d: Durability = CLASSIC) -> None:
        self.n = n
        self.bounds = bounds
        self.d = d
        self.R = range(n)
        self.L = bounds.log_size  # list size of bounded log arrays (None: unbounded arrays)
        self.E = None if bounds.max_leader_epoch is None else bounds.max_leader_epoch + 1

    # -- shared predicates ----------------------------------------------------------------------

    def running(self, o: Any, v: KafkaVars, r: int) -> Any:
        """Broker r is not stopped (always, without the stop options)."""
        return o.not_(v.dead[r]) if v.dead else True

    def lower_flushed(self, o: Any, v: KafkaVars, w: KafkaVars, r: int, off: Any) -> None:
        """A truncation to ``off`` lowers the flushed offset with the log (lossy stops only)."""
        if v.flushed:
            w.flushed[r] = o.ite(off < v.flushed[r], off, v.flushed[r])

    def epoch_left(self, v: KafkaVars) -> Any:
        """The controller may still bump the leader epoch (``MaxLeaderEpoch``)."""
        b = self.bounds.max_leader_epoch
        return True if b is None else v.nreq <= b

    def true_leader(self, o: Any, v: KafkaVars, lead: int) -> Any:
        """``IsTrueLeader(lead)``: the quorum names lead, lead presumes leadership, at the quorum's epoch."""
        return o.and_(v.ql == lead, v.ld[lead] == lead, v.ep[lead] == v.nreq - 1, self.running(o, v, lead))

    def rec_eq(self, o: Any, v: KafkaVars, a: int, b: int, k: Any) -> Any:
        """Replicas a and b hold the same record (id and epoch) at offset k."""
        return o.and_(o.sel(v.rid[a], k) == o.sel(v.rid[b], k), o.sel(v.rep[a], k) == o.sel(v.rep[b], k))

    def first_mismatch_from_tail(self, o: Any, v: KafkaVars, leader: int, f: int) -> Any:
        """KIP-279: one past the largest offset where follower f holds the leader's record, else 0.
        The hints (every broker's HW) tell the prover where to compare that offset: a follower
        that holds the leader's records below some broker's HW truncates no lower than that HW
        (at 3 replicas the HW that matters may be a third broker's)."""
        hi = o.ite(v.length[leader] < v.length[f], v.length[leader], v.length[f])
        return o.last_such(hi, lambda k: self.rec_eq(o, v, leader, f, k), self.L, hints=tuple(v.hw))

    def kip101_offset(self, o: Any, v: KafkaVars, leader: int, f: int) -> Any:
        """KIP-101 OffsetsForLeaderEpoch (``isrcheck.model.steps.truncation.kip101_offset_for_leader_epoch``)."""
        kf, kl = v.length[f], v.length[leader]
        epoch = o.sel(v.rep[f], kf - 1)
        larger = o.first_such(0, kl, lambda k: o.sel(v.rep[leader], k) > epoch, self.L)
        lookup = o.ite(kl == 0, -1, o.ite(o.sel(v.rep[leader], kl - 1) == epoch, kl, larger))
        return o.ite(kf == 0, 0, o.ite(lookup < 0, v.hw[f], lookup))

    def caught_up_to_epoch(self, o: Any, v: KafkaVars, leader: int, f: int, end: Any) -> Any:
        """First try's ``IsFollowerCaughtUpToLeaderEpoch`` minus the leader's presumption."""
        k = end - 1
        same = o.and_(k < v.length[leader], k < v.length[f], o.sel(v.rep[f], k) == o.sel(v.rep[leader], k))
        return o.and_(v.ld[f] == leader, o.or_(end == 0, same))

    def hw_reached_epoch(self, o: Any, v: KafkaVars, lead: int) -> Any:
        """``HasHighWatermarkReachedCurrentEpoch(lead)``."""
        hw, k = v.hw[lead], v.length[lead]
        return o.or_(hw == k, o.and_(hw < k, o.sel(v.rep[lead], hw) == v.ep[lead]))

    @staticmethod
    def quorum_update(v: KafkaVars, lead: int, isr: list) -> KafkaVars:
        w = v.copy()
        w.isr[lead] = list(isr)
        w.qisr = list(isr)
        return w

    def _each(self, label: str, fn: Callable, *pairs: bool) -> list[SymStep]:
        """One SymStep per replica (``pairs`` False) or per ordered pair of replicas."""
        if pairs and pairs[0]:
            return [SymStep(label, lambda o, v, a=a, b=b: fn(o, v, a, b), (a, b)) for a in self.R for b in self.R]
        return [SymStep(label, lambda o, v, a=a: fn(o, v, a), (a,)) for a in self.R]

    # -- the controller and the producer (isrcheck.model.steps.controller) ----------------------

    def controller_elect_leader(self) -> list[SymStep]:
        def fn(o: Any, v: KafkaVars, lead: int):
            guard = o.and_(self.epoch_left(v), v.qisr[lead], v.ql != lead, self.running(o, v, lead))
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.ql = lead
            w.req_ld = o.store(v.req_ld, v.nreq, lead)
            w.req_isr = [o.store(v.req_isr[j], v.nreq, v.qisr[j]) for j in self.R]
            w.nreq = v.nreq + 1
            return guard, w

        return self._each("ControllerElectLeader", fn)

    def controller_shrink_isr(self) -> list[SymStep]:
        def fn(o: Any, v: KafkaVars, r: int):
            guard = o.and_(self.epoch_left(v), o.or_(v.ql == r, v.qisr[r]))
            if o.is_false(guard):
                return guard, None
            was_leader = v.ql == r
            sole = o.and_(v.qisr[r], *(o.not_(v.qisr[j]) for j in self.R if j != r))
            new_isr = [o.and_(was_leader, sole) if j == r else v.qisr[j] for j in self.R]
            new_leader = o.ite(was_leader, -1, v.ql)
            w = v.copy()
            w.ql = new_leader
            w.qisr = new_isr
            w.req_ld = o.store(v.req_ld, v.nreq, new_leader)
            w.req_isr = [o.store(v.req_isr[j], v.nreq, new_isr[j]) for j in self.R]
            w.nreq = v.nreq + 1
            return guard, w

        return self._each("ControllerShrinkIsr", fn)

    def become_leader(self) -> list[SymStep]:
        def fn(o: Any, v: KafkaVars, lead: int):
            e = o.choose(0, v.nreq, "epoch", self.E)
            guard = o.and_(o.sel(v.req_ld, e) == lead, e > v.ep[lead], self.running(o, v, lead))
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.ep[lead] = e
            w.ld[lead] = lead
            w.isr[lead] = [o.sel(v.req_isr[j], e) for j in self.R]
            return guard, w

        return self._each("BecomeLeader", fn)

    def leader_write(self) -> list[SymStep]:
        b = self.bounds

        def fn(o: Any, v: KafkaVars, lead: int):
            k = v.length[lead]
            guard = o.and_(
                True if b.max_records is None else v.nrid < b.max_records,
                v.ld[lead] == lead,
                True if b.log_size is None else k < b.log_size,
                self.running(o, v, lead),
                # acks=all: NotEnoughReplicasException while the leader's ISR is too small
                popcount_at_least(o, v.isr[lead], self.d.min_isr) if self.d.acks == "all" else True,
            )
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            if self.d.acks == "1":  # acknowledged on the leader's append
                w.acked = [o.or_(a, v.nrid == x) for x, a in enumerate(v.acked)]
            w.rid[lead] = o.store(v.rid[lead], k, v.nrid)
            w.rep[lead] = o.store(v.rep[lead], k, v.ep[lead])
            w.length[lead] = k + 1
            w.nrid = v.nrid + 1
            return guard, w

        return self._each("LeaderWrite", fn)

    # -- ISR changes by the leader --------------------------------------------------------------

    def leader_expand_isr(self, variant: str) -> list[SymStep]:
        """classic: ``LeaderExpandIsr``; fenced: ``FencedLeaderExpandIsr`` (KIP-320); first-try:
        ``LeaderExpandIsrBetterFencing``."""

        def fn(o: Any, v: KafkaVars, lead: int, r: int):
            hw = v.hw[lead]
            if variant == "classic":
                ok = o.and_(v.ld[r] == lead, o.or_(hw == 0, o.and_(hw <= v.length[lead], hw <= v.length[r])))
            elif variant == "fenced":
                waits = True if self.d.expand_before_epoch_start else self.hw_reached_epoch(o, v, lead)
                ok = o.and_(waits, v.ld[r] == lead, v.ep[r] == v.ep[lead],
                            o.or_(hw == 0, hw <= v.length[r]))
            else:
                waits = True if self.d.expand_before_epoch_start else self.hw_reached_epoch(o, v, lead)
                ok = o.and_(waits, self.caught_up_to_epoch(o, v, lead, r, hw))
            guard = o.and_(self.true_leader(o, v, lead), o.not_(v.isr[lead][r]), ok)
            if o.is_false(guard):
                return guard, None
            return guard, self.quorum_update(v, lead, [True if j == r else v.isr[lead][j] for j in self.R])

        return self._each("LeaderExpandIsr", fn, True)

    def leader_shrink_isr(self, variant: str) -> list[SymStep]:
        def fn(o: Any, v: KafkaVars, lead: int, r: int):
            if r == lead:
                return False, None
            end = v.length[lead]
            if variant == "classic":
                lagging = o.not_(o.and_(v.ld[r] == lead, o.or_(end == 0, v.length[r] >= end)))
            elif variant == "fenced":
                lagging = o.or_(v.ld[r] != lead, v.ep[r] != v.ep[lead], v.length[r] < end)
            else:
                lagging = o.not_(self.caught_up_to_epoch(o, v, lead, r, end))
            guard = o.and_(self.true_leader(o, v, lead), v.isr[lead][r], lagging)
            if o.is_false(guard):
                return guard, None
            return guard, self.quorum_update(v, lead, [False if j == r else v.isr[lead][j] for j in self.R])

        return self._each("LeaderShrinkIsr", fn, True)

    def leader_inc_high_watermark(self, variant: str) -> list[SymStep]:
        b = self.bounds

        def fn(o: Any, v: KafkaVars, lead: int):
            hw = v.hw[lead]
            if variant == "classic":
                every = [o.implies(v.isr[lead][f], o.and_(v.ld[f] == lead, v.length[f] > hw)) for f in self.R]
                guard = o.and_(v.ld[lead] == lead, True if b.log_size is None else hw < b.log_size, *every)
            elif variant == "fenced":
                # Literal spec: with an empty cached ISR even the leadership check is vacuous.
                every = [o.implies(v.isr[lead][f], o.and_(v.ld[lead] == lead, v.ld[f] == lead, v.ep[f] == v.ep[lead],
                                                       v.length[f] > hw)) for f in self.R]
                guard = o.and_(hw < v.length[lead], *every)
            else:
                every = [o.implies(v.isr[lead][f], self.caught_up_to_epoch(o, v, lead, f, hw + 1)) for f in self.R]
                guard = o.and_(v.ld[lead] == lead, hw < v.length[lead], *every)
            guard = o.and_(guard, self.running(o, v, lead))
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.hw[lead] = hw + 1
            if self.d.acks == "all":  # the record the HW passes, with enough ISR members
                acks = o.and_(v.ld[lead] == lead, popcount_at_least(o, v.isr[lead], self.d.min_isr))
                passed = o.sel(v.rid[lead], hw)
                w.acked = [o.or_(a, o.and_(acks, passed == x)) for x, a in enumerate(v.acked)]
            return guard, w

        return self._each("LeaderIncHighWatermark", fn)

    # -- followers ------------------------------------------------------------------------------

    def become_follower_and_truncate(self, rule: str, fenced: bool = False) -> list[SymStep]:
        """rule: truncate-to-hw, kip101 or kip279 (``isrcheck.model.steps.truncation``); fenced: KIP-320."""

        def fn(o: Any, v: KafkaVars, r: int, lead: int):
            if r == lead:
                return False, None
            e = o.choose(0, v.nreq, "epoch", self.E)
            guard = o.and_(o.sel(v.req_ld, e) == lead, e > v.ep[r], self.running(o, v, r),
                           o.and_(v.ld[lead] == lead, v.ep[lead] == e) if fenced else True)
            if o.is_false(guard):
                return guard, None
            if rule == "truncate-to-hw":
                off = v.hw[r]
            elif rule == "kip101":
                off = self.kip101_offset(o, v, lead, r)
            else:
                off = self.first_mismatch_from_tail(o, v, lead, r)
            guard = o.and_(guard, off <= v.length[r])
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.length[r] = off
            w.hw[r] = o.ite(off < v.hw[r], off, v.hw[r])
            self.lower_flushed(o, v, w, r, off)
            w.ep[r] = e
            w.ld[r] = lead
            w.isr[r] = [o.sel(v.req_isr[j], e) for j in self.R]
            return guard, w

        return self._each("BecomeFollowerAndTruncate", fn, True)

    def become_follower(self) -> list[SymStep]:
        """First try: adopt the request without truncating."""

        def fn(o: Any, v: KafkaVars, r: int, lead: int):
            if r == lead:
                return False, None
            e = o.choose(0, v.nreq, "epoch", self.E)
            guard = o.and_(o.sel(v.req_ld, e) == lead, e > v.ep[r], self.running(o, v, r))
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.ep[r] = e
            w.ld[r] = lead
            w.isr[r] = [o.sel(v.req_isr[j], e) for j in self.R]
            return guard, w

        return self._each("BecomeFollower", fn, True)

    def follower_replicate(self, fenced: bool = False, caught_up_check: bool = False) -> list[SymStep]:
        """``FollowerReplicate``; fenced: KIP-320's epoch check; caught_up_check: first try's."""

        def fn(o: Any, v: KafkaVars, f: int, lead: int):
            if f == lead:
                return False, None
            k = v.length[f]
            guard = o.and_(
                v.ld[f] == lead, v.ld[lead] == lead, v.ep[lead] == v.ep[f] if fenced else True, k < v.length[lead],
                self.caught_up_to_epoch(o, v, lead, f, k) if caught_up_check else True,
                self.running(o, v, f),
            )
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.rid[f] = o.store(v.rid[f], k, o.sel(v.rid[lead], k))
            w.rep[f] = o.store(v.rep[f], k, o.sel(v.rep[lead], k))
            w.length[f] = k + 1
            w.hw[f] = o.ite(v.hw[lead] < k + 1, v.hw[lead], k + 1)
            return guard, w

        return self._each("FollowerReplicate", fn, True)

    def follower_truncate(self) -> list[SymStep]:
        """First try: truncate lazily when the last entry's epoch differs from the leader's."""

        def fn(o: Any, v: KafkaVars, f: int, lead: int):
            if f == lead:
                return False, None
            k, lk = v.length[f], v.length[lead]
            differs = o.sel(v.rep[lead], k - 1) != o.sel(v.rep[f], k - 1)
            needs = o.or_(k > lk, o.and_(0 < k, k <= lk, differs))
            guard = o.and_(v.ld[f] == lead, v.ld[lead] == lead, needs, self.running(o, v, f))
            if o.is_false(guard):
                return guard, None
            off = self.first_mismatch_from_tail(o, v, lead, f)
            w = v.copy()
            w.length[f] = off
            w.hw[f] = o.ite(off < v.hw[f], off, v.hw[f])
            self.lower_flushed(o, v, w, f, off)
            return guard, w

        return self._each("FollowerTruncate", fn, True)


GENERATIONS = ("truncate-to-hw", "kip101", "kip279", "kip320-first-try", "kip320")


def generation_steps(gen: str, n: int, bounds: Bounds, d: Durability = CLASSIC) -> list[SymStep]:
    """The symbolic ``Next`` of a generation, in the order of its explicit steps
    (``isrcheck.model.generations.Generation.next``), then the steps the durability options add
    (``isrcheck.model.symbolic.durability``)."""
    return _generation_steps(gen, n, bounds, d) + FailureSteps(Steps(n, bounds, d), d).all()


def _generation_steps(gen: str, n: int, bounds: Bounds, d: Durability) -> list[SymStep]:
    s = Steps(n, bounds, d)
    shared = s.controller_elect_leader() + s.controller_shrink_isr() + s.become_leader()
    if gen in ("truncate-to-hw", "kip101", "kip279"):
        return shared + (
            s.leader_expand_isr("classic") + s.leader_shrink_isr("classic") + s.leader_write()
            + s.leader_inc_high_watermark("classic") + s.become_follower_and_truncate(gen)
            + s.follower_replicate()
        )
    if gen == "kip320-first-try":
        return shared + (
            s.leader_expand_isr("first-try") + s.leader_shrink_isr("first-try") + s.leader_write()
            + s.leader_inc_high_watermark("first-try") + s.become_follower()
            + s.follower_replicate(caught_up_check=True) + s.follower_truncate()
        )
    if gen == "kip320":
        return shared + (
            s.leader_expand_isr("fenced") + s.leader_shrink_isr("fenced") + s.leader_write()
            + s.leader_inc_high_watermark("fenced") + s.become_follower_and_truncate("kip279", fenced=True)
            + s.follower_replicate(fenced=True)
        )
    raise ValueError(f"no symbolic encoding of generation {gen!r}")
