"""The KRaft controller's metadata log as the explicit model encodes it, and reassignment.

Modelled (``v3_5_functions.tla`` / ``kip_966_functions.tla``): ``ApplyPartitionChange``'s record
(append a PartitionChange record, interned; the controller's partition state is the log's last
record; KIP-966 keeps ``last_known_elr``), and ``PerformPartitionReassignment`` with the completion
of a reassignment that an accepted AlterPartition may bring (KIP-455: ``reassignment``; it has no
symbolic form, so it is written here once). The election and partition changes the steps make
(``HandleBrokerFenced`` ... ``MaybeUpdatePartitionOnBrokerChange``, an AlterPartition's change) are
written once in ``described_controller.py``; the generated steps reach this module only to append
a record (``apply_change``) and for the rules' memoised tables (``rules``).

Every function takes ``s``, a list copy of the state, changes it in place and, where the spec
chooses a leader non-deterministically, yields one list per choice (with the elected broker).

Abstracted away: the controller's own Raft quorum (as in the spec).
"""

from __future__ import annotations

from collections.abc import Iterator

from .config import KraftConfig
from .fields import (
    METADATA_LOG,
    NIL,
    R_ADDING,
    R_ELR,
    R_ISR,
    R_LAST_KNOWN_ELR,
    R_LEADER,
    R_LEADER_EPOCH,
    R_REMOVING,
    R_REPLICAS,
    Layout,
)
from .rules import MaskRules

# (state list, elected): the broker index elected, "none" for NoLeader, None when the leader is unchanged.
Choice = tuple[list, object]


class Controller:
    def __init__(self, config: KraftConfig, lay: Layout) -> None:
        self.lay = lay
        self.min_isr = config.min_isr
        self.elr = config.gen.elr
        self.log_i = lay.g + METADATA_LOG
        self._records: dict[tuple, tuple] = {}
        # The rules where the generations differ, written once (isrcheck.model.kraft.rules) and read
        # here through memoised tables, and by the symbolic steps on z3 terms.
        self.rules = MaskRules(config.gen, config.min_isr, lay.n)

    def record(self, leader: int, leader_epoch: int, partition_epoch: int, isr: int, elr: int, lkelr: int,
               replicas: int, adding: int = 0, removing: int = 0) -> tuple:
        """A PartitionChange record, interned so that equal records share one object in memory."""
        r = (leader, leader_epoch, partition_epoch, isr, elr, lkelr, replicas, adding, removing)
        return self._records.setdefault(r, r)

    def apply_change(self, s: list, leader: int, isr: int, elr: int, leader_epoch: int,
                     reassignment: tuple[int, int, int] | None = None) -> None:
        """``ApplyPartitionChange``: the next record, partition epoch + 1; ``reassignment`` is the new
        (replicas, adding, removing), else the current record's."""
        log = s[self.log_i]
        cur = log[-1]
        replicas, adding, removing = reassignment or cur[R_REPLICAS:]
        lkelr = self.rules.last_known_elr(cur[R_LAST_KNOWN_ELR], cur[R_ELR], isr, elr, replicas)
        s[self.log_i] = log + (self.record(leader, leader_epoch, cur[2] + 1, isr, elr, lkelr, replicas, adding,
                                           removing),)

    def update_elr(self, cur: tuple, proposed_isr: int, replicas: int | None = None) -> int:
        """KIP-966 ``UpdateElr``: empty once the ISR reaches MinISR, else the ELR gains the members the
        ISR loses (safe: the HW does not advance while the ISR is below MinISR); only members of
        ``replicas`` (default: the current replica set) stay in or join it."""
        if replicas is None:
            replicas = cur[R_REPLICAS]
        return self.rules.update_elr(cur[R_ISR], cur[R_ELR], proposed_isr, replicas)

    def new_leaders(self, cur: tuple, isr: int) -> tuple[int, ...]:
        """The leader after a reassignment step (``\\E new_leader \\in new_md.isr``): the current one if it
        is in ``isr``, else any member of ``isr`` (none: the step is not enabled)."""
        leader = cur[R_LEADER]
        if leader != NIL and isr >> leader & 1:
            return (leader,)
        return self.lay.members[isr]

    def reassign(self, s: list, adding: int, removing: int) -> Iterator[Choice]:
        """``PerformPartitionReassignment``: the target is replicas + adding - removing. It completes at
        once when nothing is added and the ISR left is at least MinISR (a new leader epoch); else the
        replica set grows to replicas + adding and the reassignment stays in progress (``adding``,
        ``removing`` in the record) until an AlterPartition brings every adding replica into the ISR."""
        cur = s[self.log_i][-1]
        replicas, isr = cur[R_REPLICAS], cur[R_ISR]
        final_replicas = (replicas | adding) & ~removing
        final_isr = isr & ~removing
        if not adding and self.lay.size[final_isr] >= self.min_isr and final_replicas:
            elr = self.update_elr(cur, final_isr, final_replicas) if self.elr else 0
            change = (final_isr, elr, cur[R_LEADER_EPOCH] + 1, (final_replicas, 0, 0))
        else:
            change = (isr, cur[R_ELR], cur[R_LEADER_EPOCH], (replicas | adding, adding, removing))
        new_isr, elr, le, reassignment = change
        for leader in self.new_leaders(cur, new_isr):
            t = list(s)
            self.apply_change(t, leader, new_isr, elr, le, reassignment)
            yield t, (None if leader == cur[R_LEADER] else leader)

    def complete_on_alter_partition(self, cur: tuple, proposed: int) -> tuple | None:
        """Whether an accepted AlterPartition proposing ``proposed`` completes the reassignment in
        progress (every adding replica in the ISR left once the removing ones go, which has at least
        MinISR members): then (final ISR, final replicas), else None."""
        adding, removing = cur[R_ADDING], cur[R_REMOVING]
        if not (adding or removing):
            return None
        final_isr = proposed & ~removing
        if adding & ~final_isr or self.lay.size[final_isr] < self.min_isr:
            return None
        return final_isr, cur[R_REPLICAS] & ~removing
