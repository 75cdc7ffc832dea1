"""The steps of ``KafkaReplication.tla`` and its generations as symbolic relations, one per
explicit step (``isrcheck.model.steps.next``), derived from the same description: the generation's
``Next`` (its step names, the TLA+ action names, in order) and its rules (``fenced``,
``isr_rule``/``hw_rule``, ``truncate_to``, ``fetch_matches_last_epoch``, ``hw_bound``,
``hw_vacuous_with_empty_isr``, ``expand_waits_for_epoch_start``) are read from
``isrcheck.model.generations.Generation``, and the rules over two logs are the very functions the
explicit model's tables are filled from (``isrcheck.model.steps.rules``, ``isrcheck.model.steps.truncation``),
read here on symbolic logs. So a generation, including one derived by an option (truncation on
fetch, ``Generation.on_fetch``) or a user's variant of a generation's rules, needs no symbolic code
of its own, and each step has the same enabling conditions as its explicit section.

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
from isrcheck.model.generations import GENERATIONS as EXPLICIT_GENERATIONS
from isrcheck.model.generations import Generation
from isrcheck.model.steps.rules import CAUGHT_UP, Log
from isrcheck.model.steps.truncation import TRUNCATE_TO, kip279

from .durability import CLASSIC, Durability, FailureSteps, popcount_at_least
from .vars import KafkaVars

# Every generation of isrcheck.model.generations has its symbolic form: the list is that module's.
GENERATIONS = tuple(EXPLICIT_GENERATIONS)
# The one step whose action (what traces print) is not spelled as its TLA+ action.
LABEL = {"BecomeFollowerAndTruncateTo": "BecomeFollowerAndTruncate"}


@dataclass(frozen=True)
class Bounds:
    """The explicit model's bounds, as guards (None fields: unbounded)."""

    log_size: int | None = None
    max_records: int | None = None
    max_leader_epoch: int | None = None


class Steps:
    """Builders of symbolic steps of generation ``gen`` for ``n`` replicas under ``bounds``."""

    def __init__(self, n: int, bounds: Bounds, gen: Generation, d: Durability = CLASSIC) -> None:
        self.n = n
        self.bounds = bounds
        self.d = d
        self.gen = gen
        self.R = range(n)
        self.L = bounds.log_size  # list size of bounded log arrays (None: unbounded arrays)
        self.E = None if bounds.max_leader_epoch is None else bounds.max_leader_epoch + 1
        self.isr_rule, self.hw_rule = CAUGHT_UP[gen.isr_rule], CAUGHT_UP[gen.hw_rule]

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

    @staticmethod
    def log(v: KafkaVars, r: int) -> Log:
        """Replica r's log as the rules read it (``isrcheck.model.steps.rules.Log``)."""
        return Log(v.length[r], v.rid[r], v.rep[r])

    def same_epoch(self, v: KafkaVars, f: int, lead: int) -> Any:
        """KIP-320's fencing (``fenced``): f is at the leader's epoch; always, without fencing."""
        return v.ep[f] == v.ep[lead] if self.gen.fenced else True

    def counts(self, o: Any, v: KafkaVars, lead: int, f: int, end: Any, rule: Callable) -> Any:
        """``IsFollowerCaughtUp(lead, f, end)``: f follows lead (at its epoch, fenced) and the
        generation's rule counts its log as holding the leader's first ``end`` offsets."""
        return o.and_(v.ld[f] == lead, self.same_epoch(v, f, lead),
                      rule(o, self.log(v, lead), self.log(v, f), end, self.L))

    def fetch_answered(self, o: Any, v: KafkaVars, f: int, lead: int) -> Any:
        """Running follower f fetches from lead, which presumes leadership (at f's epoch, fenced)."""
        return o.and_(v.ld[f] == lead, v.ld[lead] == lead, self.same_epoch(v, lead, f), self.running(o, v, f))

    def diverges(self, o: Any, v: KafkaVars, f: int, lead: int) -> Any:
        """``FollowerNeedsTruncation``: f's log is longer than the leader's, or its last record's
        epoch differs from the leader's at that offset."""
        k, lk = v.length[f], v.length[lead]
        differs = o.sel(v.rep[lead], k - 1) != o.sel(v.rep[f], k - 1)
        return o.or_(k > lk, o.and_(0 < k, k <= lk, differs))

    def hw_reached_epoch(self, o: Any, v: KafkaVars, lead: int) -> Any:
        """``HasHighWatermarkReachedCurrentEpoch(lead)``."""
        hw, k = v.hw[lead], v.length[lead]
        return o.or_(hw == k, o.and_(hw < k, o.sel(v.rep[lead], hw) == v.ep[lead]))

    def truncated(self, o: Any, v: KafkaVars, r: int, off: Any) -> KafkaVars:
        """Replica r's log cut to ``off`` (its HW and flushed offset no higher)."""
        w = v.copy()
        w.length[r] = off
        w.hw[r] = o.ite(off < v.hw[r], off, v.hw[r])
        self.lower_flushed(o, v, w, r, off)
        return w

    @staticmethod
    def quorum_update(v: KafkaVars, lead: int, isr: list) -> KafkaVars:
        w = v.copy()
        w.isr[lead] = list(isr)
        w.qisr = list(isr)
        return w

    def _each(self, label: str, fn: Callable, *pairs: bool) -> list[SymStep]:
        """One SymStep per replica (``pairs`` False) or per ordered pair of replicas."""
        label = LABEL.get(label, label)
        if pairs and pairs[0]:
            return [SymStep(label, lambda o, v, a=a, b=b: fn(o, v, a, b), (a, b)) for a in self.R for b in self.R]
        return [SymStep(label, lambda o, v, a=a: fn(o, v, a), (a,)) for a in self.R]

    # -- the controller and the producer --------------------------------------------------------

    def ControllerElectLeader(self) -> list[SymStep]:
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

    def ControllerShrinkIsr(self) -> list[SymStep]:
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

    def BecomeLeader(self) -> list[SymStep]:
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

    def LeaderWrite(self) -> list[SymStep]:
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

    # -- ISR changes and the high watermark by the leader ---------------------------------------

    def LeaderExpandIsr(self) -> list[SymStep]:
        """The generation's ISR rule; KIP-320 and its first try wait for the HW to reach the
        leader's epoch (``expand_waits_for_epoch_start``; off with the K6 option)."""
        waits = self.gen.expand_waits_for_epoch_start and not self.d.expand_before_epoch_start

        def fn(o: Any, v: KafkaVars, lead: int, r: int):
            guard = o.and_(self.true_leader(o, v, lead), o.not_(v.isr[lead][r]),
                           self.hw_reached_epoch(o, v, lead) if waits else True,
                           self.counts(o, v, lead, r, v.hw[lead], self.isr_rule))
            if o.is_false(guard):
                return guard, None
            return guard, self.quorum_update(v, lead, [True if j == r else v.isr[lead][j] for j in self.R])

        return self._each("LeaderExpandIsr", fn, True)

    def LeaderShrinkIsr(self) -> list[SymStep]:
        def fn(o: Any, v: KafkaVars, lead: int, r: int):
            if r == lead:
                return False, None
            lagging = o.not_(self.counts(o, v, lead, r, v.length[lead], self.isr_rule))
            guard = o.and_(self.true_leader(o, v, lead), v.isr[lead][r], lagging)
            if o.is_false(guard):
                return guard, None
            return guard, self.quorum_update(v, lead, [False if j == r else v.isr[lead][j] for j in self.R])

        return self._each("LeaderShrinkIsr", fn, True)

    def LeaderIncHighWatermark(self) -> list[SymStep]:
        """Bounded by ``LogSize`` or the leader's log end (``hw_bound``); with
        ``hw_vacuous_with_empty_isr`` the leadership test sits inside the quantifier over the
        cached ISR, as ``Kip320.tla`` writes it (an empty cached ISR makes it vacuous)."""
        b, gen = self.bounds, self.gen

        def fn(o: Any, v: KafkaVars, lead: int):
            hw = v.hw[lead]
            presumes = v.ld[lead] == lead
            if gen.hw_bound == "log-size":
                below = True if b.log_size is None else hw < b.log_size
            else:
                below = hw < v.length[lead]
            every = [o.implies(v.isr[lead][f], o.and_(presumes if gen.hw_vacuous_with_empty_isr else True,
                                                      self.counts(o, v, lead, f, hw + 1, self.hw_rule)))
                     for f in self.R]
            guard = o.and_(True if gen.hw_vacuous_with_empty_isr else presumes, below, *every,
                           self.running(o, v, lead))
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.hw[lead] = hw + 1
            if self.d.acks == "all":  # the record the HW passes, with enough ISR members
                acks = o.and_(presumes, popcount_at_least(o, v.isr[lead], self.d.min_isr))
                passed = o.sel(v.rid[lead], hw)
                w.acked = [o.or_(a, o.and_(acks, passed == x)) for x, a in enumerate(v.acked)]
            return guard, w

        return self._each("LeaderIncHighWatermark", fn)

    # -- followers ------------------------------------------------------------------------------

    def BecomeFollowerAndTruncateTo(self) -> list[SymStep]:
        """Truncation by the generation's rule (``truncate_to``); fenced: the named leader must
        already lead at the request's epoch."""
        rule, fenced = TRUNCATE_TO[self.gen.truncate_to], self.gen.fenced

        def fn(o: Any, v: KafkaVars, r: int, lead: int):
            if r == lead:
                return False, None
            e = o.choose(0, v.nreq, "epoch", self.E)
            guard = o.and_(o.sel(v.req_ld, e) == lead, e > v.ep[r], self.running(o, v, r),
                           o.and_(v.ld[lead] == lead, v.ep[lead] == e) if fenced else True)
            if o.is_false(guard):
                return guard, None
            off = rule(o, self.log(v, lead), self.log(v, r), v.hw[r], self.L, tuple(v.hw))
            guard = o.and_(guard, off <= v.length[r])
            if o.is_false(guard):
                return guard, None
            w = self.truncated(o, v, r, off)
            w.ep[r] = e
            w.ld[r] = lead
            w.isr[r] = [o.sel(v.req_isr[j], e) for j in self.R]
            return guard, w

        return self._each("BecomeFollowerAndTruncateTo", fn, True)

    def BecomeFollower(self) -> list[SymStep]:
        """Adopt the request without truncating (the follower truncates on a fetch)."""

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

    def FollowerReplicate(self) -> list[SymStep]:
        """A fetch appends the leader's next record; with ``fetch_matches_last_epoch`` only while
        the follower's log does not diverge."""
        matches = self.gen.fetch_matches_last_epoch

        def fn(o: Any, v: KafkaVars, f: int, lead: int):
            if f == lead:
                return False, None
            k = v.length[f]
            guard = o.and_(self.fetch_answered(o, v, f, lead), k < v.length[lead],
                           o.not_(self.diverges(o, v, f, lead)) if matches else True)
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.rid[f] = o.store(v.rid[f], k, o.sel(v.rid[lead], k))
            w.rep[f] = o.store(v.rep[f], k, o.sel(v.rep[lead], k))
            w.length[f] = k + 1
            w.hw[f] = o.ite(v.hw[lead] < k + 1, v.hw[lead], k + 1)
            return guard, w

        return self._each("FollowerReplicate", fn, True)

    def FollowerTruncate(self) -> list[SymStep]:
        """A diverging fetch: truncate to the last offset holding the leader's record (KIP-279's offset)."""

        def fn(o: Any, v: KafkaVars, f: int, lead: int):
            if f == lead:
                return False, None
            guard = o.and_(self.fetch_answered(o, v, f, lead), self.diverges(o, v, f, lead))
            if o.is_false(guard):
                return guard, None
            off = kip279(o, self.log(v, lead), self.log(v, f), v.hw[f], self.L, tuple(v.hw))
            return guard, self.truncated(o, v, f, off)

        return self._each("FollowerTruncate", fn, True)

    def FollowerUpdateHighWatermark(self) -> list[SymStep]:
        """Bug K13: a diverging response's HW applied before truncating, capped at the log end."""

        def fn(o: Any, v: KafkaVars, f: int, lead: int):
            if f == lead:
                return False, None
            k = v.length[f]
            hw = o.ite(v.hw[lead] < k, v.hw[lead], k)
            guard = o.and_(self.fetch_answered(o, v, f, lead), self.diverges(o, v, f, lead), hw != v.hw[f])
            if o.is_false(guard):
                return guard, None
            w = v.copy()
            w.hw[f] = hw
            return guard, w

        return self._each("FollowerUpdateHighWatermark", fn, True)


def generation_steps(gen: Generation, n: int, bounds: Bounds, d: Durability = CLASSIC) -> list[SymStep]:
    """The symbolic ``Next`` of a generation: its steps (``Generation.next``, TLA+ action names),
    in that order, then the steps the durability options add (``isrcheck.model.symbolic.durability``)."""
    s = Steps(n, bounds, gen, d)
    out: list[SymStep] = []
    for name in gen.next:
        builder = getattr(s, name, None)
        if builder is None or not name[0].isupper():
            raise ValueError(f"generation {gen.name}: step {name} has no symbolic form")
        out += builder()
    return out + FailureSteps(s, d).all()
