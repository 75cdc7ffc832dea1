"""The KRaft specs' remaining liveness, opt-in, checked with lassos under the specs' fairness
(``isrcheck.model.kraft.fairness``; docs/kraft.md, "Liveness under the specs' fairness").

- EventuallyLeaderElected: a partition without a leader eventually gets one (the controller's
  leader is NoLeader ~> it is a broker). KIP-966 gives up this promise by design: once every ISR and
  ELR member is gone or has lost its log, only unclean recovery (not in the specs) elects again.
- EventuallyIsrConverges: an ISR smaller than the replica set eventually grows back to it (the
  controller's ISR is not every replica ~> it is), once the perturbations (bounded) stop.
- EventuallyMetadataConverges: the specs' property of that name, ``[]<>``: infinitely often every
  broker's partition metadata matches the controller's (ISR, leader, leader epoch, partition
  epoch), or it is a follower with no record left that concerns it, or it is not a replica and was
  removed; checked as TRUE ~> the condition.

Like the rest of ``properties/``, this module never imports ``model``: it reads the model's tables.
"""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.contract import Property

LIVENESS = ("EventuallyLeaderElected", "EventuallyIsrConverges", "EventuallyMetadataConverges")


def names(t: Any) -> tuple[str, ...]:
    return LIVENESS


def builders(t: Any) -> dict[str, Any]:
    lay, f = t.layout, t.fields
    g, base, brokers = lay.g, lay.base, lay.brokers
    METADATA_LOG, NIL, R_LEADER, R_ISR, R_REPLICAS = f.METADATA_LOG, f.NIL, f.R_LEADER, f.R_ISR, f.R_REPLICAS
    R_LEADER_EPOCH, R_PARTITION_EPOCH = f.R_LEADER_EPOCH, f.R_PARTITION_EPOCH
    MD_ISR, MD_LEADER, MD_LEADER_EPOCH = f.MD_ISR, f.MD_LEADER, f.MD_LEADER_EPOCH
    MD_PARTITION_EPOCH = f.MD_PARTITION_EPOCH
    MD_OFFSET, MD_REPLICAS, ROLE, FOLLOWER, NO_ROLE = f.MD_OFFSET, f.MD_REPLICAS, f.ROLE, f.FOLLOWER, f.NO_ROLE

    def current(s):
        return s[g + METADATA_LOG][-1]

    def no_relevant_record(s, b):
        """``~\\E md_offset \\in UnreplicatedOffsets(b) : PartitionNeedsAction(b, md_offset)`` for a follower."""
        o = base[b]
        bit = lay.bit[b]
        replica = s[o + MD_REPLICAS] & bit
        for rec in s[g + METADATA_LOG][s[o + MD_OFFSET]:]:
            if rec[R_LEADER_EPOCH] > s[o + MD_LEADER_EPOCH] if replica else rec[R_REPLICAS] & bit:
                return False
        return True

    def metadata_converged(s):
        cur = current(s)
        for b in brokers:
            o = base[b]
            if (s[o + MD_ISR] == cur[R_ISR] and s[o + MD_LEADER] == cur[R_LEADER]
                    and s[o + MD_LEADER_EPOCH] == cur[R_LEADER_EPOCH]
                    and s[o + MD_PARTITION_EPOCH] == cur[R_PARTITION_EPOCH]):
                continue
            if s[o + ROLE] == FOLLOWER and no_relevant_record(s, b):
                continue
            if s[o + ROLE] == NO_ROLE and not cur[R_REPLICAS] >> b & 1:
                continue
            return False
        return True

    def isr_short(s):
        cur = current(s)
        return cur[R_ISR] != cur[R_REPLICAS]

    return {
        "EventuallyLeaderElected": lambda: Property.leads_to(
            "EventuallyLeaderElected", lambda s: current(s)[R_LEADER] == NIL, lambda s: current(s)[R_LEADER] != NIL,
            "a partition without a leader eventually gets one", default=False),
        "EventuallyIsrConverges": lambda: Property.leads_to(
            "EventuallyIsrConverges", isr_short, lambda s: not isr_short(s),
            "an ISR smaller than the replica set eventually grows back to it", default=False),
        "EventuallyMetadataConverges": lambda: Property.leads_to(
            "EventuallyMetadataConverges", lambda s: True, metadata_converged,
            "infinitely often every broker's partition metadata matches the controller's (the specs' property)",
            default=False),
    }
