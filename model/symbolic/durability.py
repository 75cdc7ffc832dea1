"""The durability options in symbolic form: acknowledgements, broker stops and restarts, log
flushes and unclean leader election (``isrcheck.model.steps.failures``, the acks rules of
``isrcheck.model.steps.controller`` and ``isrcheck.model.steps.leader``), and the promises ``AckedRecordNotLost`` and
``LogMatching`` (``isrcheck.properties.durability``).

Encoded for bounded model checking: ``acks`` (0, 1, all) with ``min.insync.replicas``,
``max_crashes`` with stops ``crash``, ``lossy`` or ``crash+lossy``, ``unclean_election`` (any,
highest-last-epoch) and ``expand_before_epoch_start`` (bug K6). Refused with a message: controlled
shutdown (stops ``controlled`` and ``all``), KIP-966's unclean-recovery rule, the consumer and rack
options, and every option in the unbounded encoding (proofs stay on the classic model).

Abstracted away: as in the explicit steps (a stop is the broker stopping and the controller
noticing in one step; a restarted broker re-reads only the current LeaderAndIsr request).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep

from .properties import agree_below
from .vars import Extras, KafkaVars


@dataclass(frozen=True)
class Durability:
    """The durability options the symbolic steps read (all off: the classic model)."""

    acks: str = "none"
    min_isr: int = 1
    max_crashes: int = 0
    crash: bool = False  # BrokerCrash: the page cache survives
    lossy: bool = False  # BrokerCrash(lost_unflushed): the log keeps its flushed prefix
    unclean: str = "off"
    expand_before_epoch_start: bool = False

    def extras(self, max_records: int) -> Extras:
        return Extras(stops=self.max_crashes > 0, flushed=self.lossy,
                      records=max_records if self.acks != "none" else 0)


CLASSIC = Durability()


def durability(options: Any, unbounded: bool) -> Durability:
    """The symbolic ``Durability`` of a model's ``DurabilityOptions``; ValueError (the CLI's exit 2)
    for what is not encoded."""
    kinds = options.crash_kinds
    if "controlled" in kinds:
        raise ValueError("controlled shutdown is not encoded symbolically: use --stops crash, lossy or crash+lossy")
    if options.kip966_unclean_recovery:
        raise ValueError("KIP-966's unclean-recovery rule is not encoded symbolically: drop --kip966-unclean-recovery")
    d = Durability(options.acks, options.min_insync_replicas, options.max_crashes, "crash" in kinds,
                   "lossy" in kinds, options.unclean_election, options.expand_before_epoch_start)
    if unbounded and d != CLASSIC:
        raise ValueError("proofs encode the classic model only: switch the durability options off")
    return d


def popcount_at_least(o: Any, bits: list, m: int) -> Any:
    """At least ``m`` of the Booleans ``bits`` hold (small ``n``: a disjunction of subsets)."""
    if m <= 0:
        return o.true
    from itertools import combinations

    return o.or_(*(o.and_(*c) for c in combinations(bits, m)))


class FailureSteps:
    """``BrokerCrash``, ``BrokerRestart``, ``FlushLog`` and ``UncleanLeaderElection`` for ``n``
    replicas (``steps.Steps`` supplies the controller's bound)."""

    def __init__(self, steps: Any, d: Durability) -> None:
        self.s = steps
        self.d = d
        self.R = steps.R

    def all(self) -> list[SymStep]:
        """The option steps in ``isrcheck.model.steps.option_steps`` order."""
        d = self.d
        out: list[SymStep] = []
        if d.max_crashes:
            out += self.broker_stop() + self.broker_restart()
            if d.lossy:
                out += self.flush_log()
            if d.unclean != "off":
                out += self.unclean_election()
        return out

    def _removal(self, o: Any, v: KafkaVars, w: KafkaVars, r: int) -> Any:
        """The controller takes broker ``r`` out as ``ControllerShrinkIsr`` does (a new request),
        or does nothing when ``r`` is neither leader nor ISR member. Updates ``w``; the guard."""
        involved = o.or_(v.ql == r, v.qisr[r])
        was_leader = v.ql == r
        sole = o.and_(v.qisr[r], *(o.not_(v.qisr[j]) for j in self.R if j != r))
        new_isr = [o.ite(involved, o.and_(was_leader, sole), v.qisr[j]) if j == r else v.qisr[j] for j in self.R]
        new_leader = o.ite(was_leader, -1, v.ql)
        w.ql = new_leader
        w.qisr = new_isr
        w.req_ld = o.ite(involved, o.store(v.req_ld, v.nreq, new_leader), v.req_ld)
        w.req_isr = [o.ite(involved, o.store(v.req_isr[j], v.nreq, new_isr[j]), v.req_isr[j]) for j in self.R]
        w.nreq = o.ite(involved, v.nreq + 1, v.nreq)
        return o.or_(o.not_(involved), self.s.epoch_left(v))

    def broker_stop(self) -> list[SymStep]:
        """``BrokerCrash`` of a running broker while stops are left: with ``lossy`` the log keeps its
        flushed prefix and the HW is capped there (offered even when nothing is unflushed unless
        plain crashes are explored too, as the explicit step does)."""
        d = self.d

        def fn(o: Any, v: KafkaVars, r: int, lossy: bool):
            guard = o.and_(v.crashes < d.max_crashes, o.not_(v.dead[r]))
            if lossy and d.crash:
                guard = o.and_(guard, v.flushed[r] < v.length[r])
            w = v.copy()
            guard = o.and_(guard, self._removal(o, v, w, r))
            w.ld[r] = -1
            w.dead[r] = True
            w.crashes = v.crashes + 1
            if lossy:
                keep = v.flushed[r]
                w.length[r] = keep
                w.hw[r] = o.ite(v.hw[r] < keep, v.hw[r], keep)
            return guard, w

        kinds = ([False] if d.crash else []) + ([True] if d.lossy else [])
        # params: the replica, and a tag that symmetry breaking leaves alone (it renames ints only)
        return [SymStep("BrokerCrash", lambda o, v, r=r, lossy=lossy: fn(o, v, r, lossy),
                        (r, "lossy" if lossy else "crash")) for lossy in kinds for r in self.R]

    def broker_restart(self) -> list[SymStep]:
        """``BrokerRestart``: the broker comes back with its on-disk log, its epoch just below the
        controller's current one so that it adopts the current request (or a later one)."""

        def fn(o: Any, v: KafkaVars, r: int):
            w = v.copy()
            w.ep[r] = o.ite(v.nreq >= 1, v.nreq - 2, v.ep[r])
            w.dead[r] = False
            return v.dead[r], w

        return self.s._each("BrokerRestart", fn)

    def flush_log(self) -> list[SymStep]:
        """``FlushLog``: a running replica's recovery point moves to its log end."""

        def fn(o: Any, v: KafkaVars, r: int):
            w = v.copy()
            w.flushed[r] = v.length[r]
            return o.and_(o.not_(v.dead[r]), v.flushed[r] < v.length[r]), w

        return self.s._each("FlushLog", fn)

    def unclean_election(self) -> list[SymStep]:
        """``UncleanLeaderElection``: no leader and every ISR member stopped (the ISR not empty): a
        running replica outside it becomes leader with ISR = {it}; ``highest-last-epoch`` elects
        among those whose last record has the highest epoch, then the longest logs."""
        highest = self.d.unclean == "highest-last-epoch"

        def last_epoch(o: Any, v: KafkaVars, r: int) -> Any:
            return o.ite(v.length[r] == 0, -1, o.sel(v.rep[r], v.length[r] - 1))

        def fn(o: Any, v: KafkaVars, r: int):
            no_live_member = o.and_(*(o.implies(v.qisr[j], v.dead[j]) for j in self.R))
            guard = o.and_(v.ql == -1, no_live_member, o.or_(*v.qisr), self.s.epoch_left(v), o.not_(v.dead[r]))
            if highest:
                top = last_epoch(o, v, r)
                for m in self.R:
                    if m != r:
                        em = last_epoch(o, v, m)
                        guard = o.and_(guard, o.implies(o.not_(v.dead[m]), o.and_(
                            em <= top, o.implies(em == top, v.length[m] <= v.length[r]))))
            w = v.copy()
            w.ql = r
            w.qisr = [j == r for j in self.R]
            w.req_ld = o.store(v.req_ld, v.nreq, r)
            w.req_isr = [o.store(v.req_isr[j], v.nreq, j == r) for j in self.R]
            w.nreq = v.nreq + 1
            return guard, w

        return self.s._each("UncleanLeaderElection", fn)


def acked_record_not_lost(n: int, size: int | None) -> Callable[[Any, KafkaVars], Any]:
    """Every acknowledged record is in the log of the established leader (the quorum leader once
    it leads at the quorum's current epoch)."""

    def prop(o: Any, v: KafkaVars) -> Any:
        parts = []
        for lead in range(n):
            established = o.and_(v.ql == lead, v.ld[lead] == lead, v.ep[lead] == v.nreq - 1)
            for x, acked in enumerate(v.acked):
                held = o.exists(0, v.length[lead], lambda k, lead=lead, x=x: o.sel(v.rid[lead], k) == x, size)
                parts.append(o.implies(o.and_(established, acked), held))
        return o.and_(*parts)

    return prop


def log_matching(n: int, size: int | None) -> Callable[[Any, KafkaVars], Any]:
    """Any two replicas hold the same record at every offset below both their HWs."""

    def prop(o: Any, v: KafkaVars) -> Any:
        parts = []
        for a in range(n):
            for b in range(a + 1, n):
                hw = o.ite(v.hw[b] < v.hw[a], v.hw[b], v.hw[a])
                parts.append(agree_below(o, v, a, b, hw, size))
        return o.and_(*parts)

    return prop
