"""A broker's replica of the partition: high watermark, acknowledgements, epochs in its log.

Modelled (``v3_5_functions.tla`` / ``kip_966_functions.tla``): ``GetCommitOffset`` (the largest
offset every member of the leader's maximal ISR has, by the follower LEOs the leader last saw),
``CanAdvanceHwm`` (KIP-966: only while the leader's ISR has at least MinISR members),
``MaybeAdvanceHighWatermark`` with the ghost variables it updates (the true HW, the records consumed
below it, positive acknowledgements), ``MaybeFailPendingWrites`` (negative acknowledgements),
``MaybeUpdateHwmAndAckOnPartitionChange``, the part of ``EnsureLeadershipRenounced`` that clears a
former leader's state, and ``LastOffsetForEpoch`` with the follower's truncation point.

Offsets are 0-based and exclusive at the end (the spec's are 1-based: its HWM 1 is our 0).
Abstracted away: nothing beyond the model's (see ``isrcheck.model.kraft``).
"""

from __future__ import annotations

from isrcheck.explorer.symbolic.concrete import ConcreteOps

from . import functions
from .config import KraftConfig
from .fields import (
    LOG,
    MD_LEADER_EPOCH,
    Layout,
)
from .replica_source import commit_offsets, last_offsets_for_epoch
from .rules import MaskRules
from .staging import raise_hw_functions


class Replica:
    def __init__(self, config: KraftConfig, lay: Layout) -> None:
        self.lay = lay
        self.config = config
        self.ops = ConcreteOps()  # reads functions.py's one description on ints
        self.commit_offsets = commit_offsets(lay.n)  # functions.commit_offset, generated per leader
        self.last_offsets = last_offsets_for_epoch(config.values)  # as a follower, as the leader
        self.g = lay.g
        self.nv = config.values
        self.min_isr = config.min_isr
        self.raise_hw = raise_hw_functions(config, lay)  # described_replica.raise_hw, one per leader
        self.hw_isr_ok = MaskRules(config.gen, config.min_isr, lay.n).hw_isr_ok()  # by ISR mask (rules.py)

    def hw_members(self, isr: int, maximal_isr: int) -> int:
        """``functions.hw_members``."""
        return functions.hw_members(self.config, isr, maximal_isr)

    def commit_offset(self, b: int, members: int, leo: int, followers: tuple) -> int:
        """``functions.commit_offset`` (``GetCommitOffset`` + 1) on the mask ``members`` and the
        (LEO, epoch) pairs b last saw, through its generated source (``replica_source.py``)."""
        return self.commit_offsets[b](members, leo, followers)

    def can_advance(self, isr: int, old: int, new: int) -> bool:
        """``functions.can_advance`` (``CanAdvanceHwm``)."""
        return functions.can_advance(self.ops, self.hw_isr_ok[isr], old, new)

    def last_offset_for_epoch(self, state: tuple, b: int, epoch: int, is_leader: bool) -> tuple[int, int]:
        """``functions.last_offset_for_epoch`` (``LastOffsetForEpoch``) of b's log, through its
        generated source (``replica_source.py``)."""
        o = self.lay.base[b]
        return self.last_offsets[is_leader](state[o + LOG], state[o + MD_LEADER_EPOCH], epoch)

    def truncation_point(self, state: tuple, f: int, diverging: tuple[int, int]) -> int:
        """``functions.truncation_point`` (``FindTruncatePoint``) on f's own answer."""
        local = self.last_offset_for_epoch(state, f, diverging[0], False)
        return functions.truncation_point(self.ops, local, diverging)

