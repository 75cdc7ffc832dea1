"""The KRaft family (``isrcheck.model.kraft``) in symbolic form, for ``isrcheck bmc`` and ``prove``.

``KraftSymbolic(explicit, unbounded)`` is a ``SymbolicModel`` (``isrcheck.explorer.symbolic.contract``)
of one KRaft configuration: the state as symbolic variables (``vars``), one symbolic step per
branch of each explicit step (``steps``), the family's invariants (``properties``). The classic
factory (``isrcheck.model.symbolic.make_symbolic``) hands a KRaft model here. With
``unbounded=False`` the arrays have the sizes no reachable state exceeds (logs: ``--max-records``;
the metadata log: ``steps.metadata_bound``) and the relation is the explicit model's (bounded model
checking explores what BFS explores); with ``unbounded=True`` logs and the metadata log are
unbounded z3 arrays and ints (proofs), for the configuration's brokers, values and perturbation
limits, which are the protocol's state, not bounds.

Refused by option name (``unsupported``): the split fetch, reassignment and spare brokers (their
state is not represented) and more than one shutdown in all (stale registration requests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.explorer.symbolic.lemma_sets import named_sets

from ..fields import STARTING
from . import lemmas as lemma_module
from . import target_lemmas as target_module
from . import vars as kv
from .history import with_history
from .lemmas import kraft_lemmas
from .properties import kraft_properties
from .steps import KraftSteps, metadata_bound


def unsupported(config: Any) -> str | None:
    """Why this KRaft configuration has no symbolic form (the option to drop), or None."""
    if config.split_fetch:
        return "--split-fetch (its messages in flight are not encoded symbolically; drop it)"
    if config.reassignments or config.spare_brokers:
        return "--max-reassignments and --spare-brokers (reassignment is not encoded symbolically; drop them)"
    if config.lossy_shutdowns + config.clean_shutdowns > 1:
        return (f"--max-crashes {max(config.lossy_shutdowns, config.clean_shutdowns)} with --stops "
                f"{'all' if config.lossy_shutdowns and config.clean_shutdowns else 'lossy or controlled'}: more "
                "than one shutdown in all leaves stale registration requests in flight, which are not encoded "
                "symbolically; use --max-crashes 1 with --stops lossy or --stops controlled")
    return None


class KraftSymbolic:
    """The symbolic ``Next`` of one KRaft configuration (see the module docstring)."""

    def __init__(self, explicit: Any, unbounded: bool = False) -> None:
        c = explicit.config
        why = unsupported(c)
        if why is not None:
            raise ValueError(f"the KRaft family's symbolic form does not cover {why}")
        self.explicit = explicit
        self.config = c
        self.unbounded = unbounded
        self.n = c.brokers
        records = metadata_bound(c)
        self.z = kv.Sizes(c.brokers, c.values, None if unbounded else c.values,
                          None if unbounded else records)
        steps = KraftSteps(c, self.z).all()
        self._steps = steps if unbounded else with_history(steps, self.z)  # vars.History: bounded only
        self._props = kraft_properties(c, self.z)
        self._start = kv.encode(explicit, explicit.init_states()[0], self.z)
        # Every int (offsets up to the metadata log's size, leader and partition epochs up to one
        # more, broker epochs, counters) and each plus or minus one fits this signed width.
        largest = max(records + 2, c.brokers + c.lossy_shutdowns + c.clean_shutdowns + 2, c.values + 2, 4)
        self.int_bits = None if unbounded else largest.bit_length() + 1

    def __repr__(self) -> str:
        kind = "unbounded" if self.unbounded else "bounded"
        return f"KraftSymbolic({self.config.generation}, brokers={self.n}, {kind})"

    def variables(self, ops: Any, name: str) -> kv.KraftVars:
        return kv.make_vars(ops, name, self.z)

    def init(self, ops: Any, v: kv.KraftVars) -> Any:
        return kv.equal(ops, v, self._start, exact=False, z=self.z)

    def steps(self) -> Sequence[SymStep]:
        return self._steps

    def equal(self, ops: Any, v: kv.KraftVars, w: kv.KraftVars, exact: bool = True) -> Any:
        return kv.equal(ops, v, w, exact, self.z)

    def properties(self) -> dict[str, Callable[[Any, kv.KraftVars], Any]]:
        return self._props

    def decode(self, ops: Any, value: Callable[[Any], Any], v: kv.KraftVars, explicit: Any = None) -> tuple:
        return kv.decode(explicit or self.explicit, ops, value, v, self.z)

    def encode(self, state: tuple) -> kv.KraftVars:
        return kv.encode(self.explicit, state, self.z)

    def type_ok(self, ops: Any, v: kv.KraftVars) -> Any:
        """What every reachable state has, whatever its size, so that a counterexample to induction
        is a state of the explicit model: fields in their ranges (statuses, roles, phases, brokers
        named), a log of at most ``--max-records`` records (each value is written once) holding
        values of the configuration at epochs from 0, the same of the consumed records, and
        metadata records naming brokers or none; epochs not negative; the history (``vars.History``) in
        its ranges. Bounded, the metadata log
        within its array (``steps.metadata_bound``, which no reachable state exceeds): induction over
        the bounded encoding (``prove --bounded``) otherwise meets metadata logs longer than their
        array, whose records past it read as 0. A broker is STARTING only after a shutdown."""
        c, n, nv = self.config, self.n, self.config.values
        L = self.z.log

        def records(llen: Any, ep: Any, val: Any) -> Any:
            return ops.forall(0, llen, lambda o: ops.and_(ops.sel(ep, o) >= 0, ops.sel(val, o) >= 0,
                                                          ops.sel(val, o) < nv), L)

        parts = [v.mlen >= 1, 0 <= v.true_hw, v.true_hw <= nv, records(v.true_hw, v.cep, v.cval),
                 ops.forall(0, v.mlen, lambda i: ops.and_(ops.sel(v.m_leader, i) >= -1,
                                                          ops.sel(v.m_leader, i) < n), self.z.records),
                 0 <= v.unclean, v.unclean <= c.lossy_shutdowns, 0 <= v.clean, v.clean <= c.clean_shutdowns,
                 0 <= v.fencings, v.fencings <= c.fencings, 0 <= v.shrinks, v.shrinks <= c.leader_shrinks,
                 v.last_be >= n, ops.forall(0, v.mlen, lambda i: ops.and_(ops.sel(v.m_le, i) >= 1,
                                                                          ops.sel(v.m_pe, i) >= 1), self.z.records)]
        if self.z.records is not None:
            parts.append(v.mlen <= self.z.records)
        # With one shutdown in all (the symbolic form refuses more), a broker is STARTING only after
        # it: a STARTING broker's shutdown, which leaves its registration in flight (the stale
        # requests the symbolic form does not represent), is never enabled. Without this, induction
        # meets a STARTING broker before any shutdown, whose shutdown the relation and the explicit
        # model take to different states.
        parts += [ops.implies(x.status == STARTING, v.unclean + v.clean >= 1) for x in v.b]
        # The HW is bounded by the values, not by the log: wherever a committed record can be lost
        # (K11: Kafka 3.5's lossy shutdown; K7: the HW over the ISR, not the maximal ISR, in either
        # generation), a follower truncated to a leader without that record keeps its HW above its
        # log. A type_ok with HW <= log end assumed those reachable states away, and prove (bounded
        # or not) reported lemmas false in them proved.
        for x in v.b:
            parts += [0 <= x.llen, x.llen <= nv, records(x.llen, x.lep, x.lval), 0 <= x.hw, x.hw <= nv,
                      0 <= x.md_off, x.md_off <= v.mlen, 0 <= x.status, x.status <= 4, 0 <= x.role, x.role <= 2,
                      -1 <= x.fetch_from, x.fetch_from < n, -1 <= x.md_leader, x.md_leader < n,
                      0 <= x.ap_phase, x.ap_phase <= 3, 0 <= x.wfloor, x.wfloor <= self.z.nof,
                      0 <= x.bepoch, 1 <= x.cbe, 0 <= x.reg_resp, 0 <= x.md_le, 0 <= x.md_pe, -1 <= x.eps]
            parts += [e >= 0 for e in x.fep + x.ap_ep]
            parts += [ops.and_(-1 <= leo, leo <= nv) for leo in x.fleo]
        # The history (vars.History): epoch starts within a log or NIL, broker epochs, leader epochs
        # and metadata log lengths not negative, and no longer than the metadata log.
        h = v.h
        if self.z.epochs is None:  # unbounded: no history
            return ops.and_(*parts)
        parts.append(ops.forall(0, self.z.epochs, lambda e: ops.and_(
            -1 <= ops.sel(h.es, e), ops.sel(h.es, e) <= nv, ops.sel(h.esb, e) >= 0,
            -1 <= ops.sel(h.esl, e), ops.sel(h.esl, e) < n, ops.sel(h.esx, e) >= 0), self.z.epochs))
        parts += [ops.and_(0 <= x, x <= v.mlen) for x in h.reg] + [x >= 0 for x in h.lost]
        # The commit's leader epoch is a leader's metadata epoch, which type_ok bounds below only
        # (tests/model/test_kraft_history_type_ok.py: every step keeps the history in range).
        parts.append(h.hwe >= 0)
        parts += [ops.and_(0 <= x, x <= v.mlen) for x in h.lostk]
        parts += [x >= 0 for x in h.hwat]  # a leader epoch, bounded below only (as h.hwe)
        return ops.and_(*parts)

    def lemmas(self) -> dict[str, Callable[[Any, kv.KraftVars], Any]]:
        """The family's candidate lemmas (``lemmas.py``, ``target_lemmas.py``), by name."""
        return {**kraft_lemmas(self.config, self.z), **target_module.target_lemmas(self.config, self.z)}

    def lemma_sets(self) -> dict[str, tuple[str, ...]]:
        """The proved sets at the end of ``lemmas.py`` (``structural``, ``metadata``, ``history``,
        ``bounded-inductive``, ...) and those of ``target_lemmas.py`` (``targets``, ...), by
        ``prove --lemma-set``."""
        return {**named_sets(lemma_module.__dict__), **named_sets(target_module.__dict__)}

    def lemma_hint(self, missing: Sequence[str]) -> str | None:
        """Why a named set's lemmas are missing: the unbounded encoding keeps no history."""
        if self.unbounded and set(missing) & {*lemma_module.MEANING, *target_module.TARGET_MEANING}:
            return "they read the history the bounded encoding keeps: add --bounded"
        return None

    def explicit_for(self, ops: Any, value: Callable[[Any], Any], vs: Sequence[kv.KraftVars]) -> Any:
        """The explicit model shows any KRaft state of its configuration (it has no log-size bound)."""
        return self.explicit
