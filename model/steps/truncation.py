"""Where a replica truncates its log on becoming follower, per protocol generation.

Each function returns the offset ``BecomeFollowerAndTruncateTo`` truncates to; the step is then
enabled only if that offset is at most the replica's end offset. A generation names its rule in
``Generation.truncate_to`` (``TRUNCATE_TO`` below).

- ``truncate-to-hw`` (pre-0.11, ``KafkaTruncateToHighWatermark``): the replica's own high
  watermark. Loses committed data when the replica is elected right after (KIP-101 scenario 1).
- ``kip101`` (KIP-101, Kafka 0.11, ``Kip101``): OffsetsForLeaderEpoch. The follower asks the leader
  for the end offset of the epoch of its own last record: the leader's end offset if its last
  record has that epoch, else the first offset with a larger epoch, else (leader log empty, or no
  larger epoch) the follower's HW. An empty follower truncates to 0. Divergence remains after fast
  leader changes (KAFKA-6361).
- ``kip279`` (KIP-279, Kafka 2.0, ``Kip279``): walk back from the follower's tail to the last
  offset where it holds the leader's exact record (id and epoch) and truncate just past it; 0 if the
  leader's log is empty or nothing matches.

Abstracted away: the OffsetsForLeaderEpoch request/response exchange (one atomic step that reads
the leader's *current* log, whatever that replica's own epoch: the hole KIP-320 closes) and the
leader-epoch cache (epochs are read from the records).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..encoding.state import HW

# (state, leader index, replica index, replica block offset) -> truncation offset
TruncationOffset = Callable[[tuple, int, int, int], int]


def truncate_to_high_watermark(t: Any) -> TruncationOffset:
    def offset(s: tuple, leader: int, replica: int, b: int) -> int:
        return s[b + HW]

    return offset


def kip101_offset_for_leader_epoch(t: Any) -> TruncationOffset:
    last_epoch = t.logs.last_epoch
    lookup = t.logs.kip101_lookup
    base = t.layout.base

    def offset(s: tuple, leader: int, replica: int, b: int) -> int:
        epoch = last_epoch[s[b]]
        if epoch < 0:
            return 0  # empty follower log
        off = lookup(s[base[leader]], epoch)
        return s[b + HW] if off < 0 else off

    return offset


def kip279_first_mismatch_from_tail(t: Any) -> TruncationOffset:
    first_mismatch = t.logs.first_mismatch_from_tail
    base = t.layout.base

    def offset(s: tuple, leader: int, replica: int, b: int) -> int:
        return first_mismatch(s[base[leader]], s[b])

    return offset


TRUNCATE_TO: dict[str, Callable[[Any], TruncationOffset]] = {
    "high-watermark": truncate_to_high_watermark,
    "kip101": kip101_offset_for_leader_epoch,
    "kip279": kip279_first_mismatch_from_tail,
}
