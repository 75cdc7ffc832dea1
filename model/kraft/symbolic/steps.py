"""The KRaft steps as symbolic relations (``isrcheck.explorer.symbolic.contract``): ``all`` puts
``Next`` together from the steps' one description (``isrcheck.model.kraft.described``, read by
``derived.py``: one ``SymStep`` per acting broker and case, each case's guard saying when it is
the one taken). The controller's and the replica's functions are described once too
(``described_controller.py``, ``described_replica.py``) and read by the same reader; this module
holds only what the z3 reading encodes its own way: the metadata log's last record (``Cur``), an
appended PartitionChange record (``append``, KIP-966's last known ELR with it), a blanked
leadership, LastOffsetForEpoch on the log arrays. The controller's election is an existential
choice of the elected broker (``ops.choose``; -1 where no one is elected), as is the record a
broker jumps to in the metadata log (``ReceiveMetadataUpdate``).

Bounds (``Sizes``) appear only as guards where a step appends (a record to a log, a record to the
metadata log), at sizes no reachable state reaches (``metadata_bound`` says why), so with bounds
the relation is the explicit model's; the differential test (tests/model/test_kraft_symbolic.py)
checks it on every reachable state at small bounds.

Abstracted away: as in the explicit steps (atomic fetches; see ``isrcheck.model.kraft``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.model.kraft.config import KraftConfig
from isrcheck.model.kraft.fields import (
    NIL,
)

from .. import functions, rules
from ..described import STEPS, next_order
from ..rules import at_least
from .derived import derived_steps
from .vars import KraftVars, Sizes


def metadata_bound(c: KraftConfig) -> int:
    """At least the longest metadata log a reachable state holds. Every record is one partition
    change: a fencing and its UnfenceBroker (2 per ``fencings``), a shutdown and its registration
    (2 per shutdown), an accepted AlterPartition that shrinks (at most ``leader_shrinks``) or only
    adds members; additions are at most the members that ever left the ISR (the initial
    non-members, one per fencing, shutdown or unclean registration, ``n - 1`` per leader shrink)."""
    shutdowns = c.lossy_shutdowns + c.clean_shutdowns
    additions = (c.brokers - c.init_isr_size) + c.fencings + 2 * shutdowns + c.leader_shrinks * (c.brokers - 1)
    return 1 + 2 * c.fencings + 2 * shutdowns + c.leader_shrinks + additions


def exactly(o: Any, bits: Sequence[Any], m: int) -> Any:
    return o.and_(at_least(o, bits, m), o.not_(at_least(o, bits, m + 1)))


class Cur:
    """The controller's partition state: the metadata log's last record."""

    def __init__(self, o: Any, v: KraftVars) -> None:
        i = v.mlen - 1
        self.leader, self.le, self.pe = o.sel(v.m_leader, i), o.sel(v.m_le, i), o.sel(v.m_pe, i)
        self.isr = [o.sel(x, i) for x in v.m_isr]
        self.elr = [o.sel(x, i) for x in v.m_elr]
        self.lk = [o.sel(x, i) for x in v.m_lk]


class KraftSteps:
    """Builders of the symbolic steps of one KRaft configuration (see the module docstring)."""

    def __init__(self, config: KraftConfig, z: Sizes) -> None:
        self.c = config
        self.gen = config.gen
        self.z = z
        self.n = config.brokers
        self.R = range(self.n)
        self.nv = config.values
        self.min_isr = config.min_isr
        self.replicas = [True] * self.n  # every broker a replica (reassignment is refused)

    # -- the controller (isrcheck.model.kraft.controller) ------------------------------------------

    @staticmethod
    def cur(o: Any, v: KraftVars) -> Cur:
        return Cur(o, v)

    def append(self, o: Any, v: KraftVars, w: KraftVars, cur: Cur, cond: Any, leader: Any, le: Any,
               isr: list, elr: list) -> Any:
        """``ApplyPartitionChange`` where ``cond`` holds: the next record (partition epoch + 1, the
        last known ELR kept by KIP-966); the guard that the bounded metadata log has room."""
        i = v.mlen
        lk = rules.last_known_elr(o, self.gen, self.min_isr, cur.lk, cur.elr, isr, elr, self.replicas)
        w.m_leader = o.store(w.m_leader, i, leader)
        w.m_le = o.store(w.m_le, i, le)
        w.m_pe = o.store(w.m_pe, i, cur.pe + 1)
        for j in self.R:
            w.m_isr[j] = o.store(w.m_isr[j], i, isr[j])
            w.m_elr[j] = o.store(w.m_elr[j], i, elr[j])
            w.m_lk[j] = o.store(w.m_lk[j], i, lk[j])
        w.mlen = o.ite(cond, v.mlen + 1, v.mlen)
        return o.true if self.z.records is None else o.implies(cond, v.mlen < self.z.records)

    # -- a replica (isrcheck.model.kraft.replica) ----------------------------------------------------

    def blank(self, o: Any, x: Any) -> None:
        x.fleo, x.fep = [NIL] * self.n, [0] * self.n
        x.ap_phase, x.ap_isr, x.ap_ep = 0, [o.false] * self.n, [0] * self.n
        x.wfloor = self.z.nof

    def last_offset_for_epoch(self, o: Any, x: Any, epoch: Any, is_leader: bool) -> tuple[Any, Any]:
        """``functions.last_offset_for_epoch`` (``LastOffsetForEpoch``) of broker ``x``."""
        return functions.last_offset_for_epoch(o, lambda off: o.sel(x.lep, off), x.llen, epoch,
                                               x.md_le if is_leader else None, self.z.log)

    # -- the steps -----------------------------------------------------------------------------------

    def all(self) -> list[SymStep]:
        """Every step, broker by broker in the spec's order, each read from its one description
        (``isrcheck.model.kraft.described``, by ``derived.py``)."""
        described = {d.method: d.name for d in STEPS.values()}
        return [s for b in self.R for method in next_order(self.c) for s in derived_steps(self, described[method], b)]
