"""Where a replica truncates its log on becoming follower, per protocol generation.

Each rule is a table over pairs of logs, ``table[leader_log * size + follower_log]``: the offset
``BecomeFollowerAndTruncateTo`` truncates to, or ``FOLLOWER_HW`` where the rule falls back to the
follower's own high watermark (the only part of the state a rule reads besides the two logs).
The step is then enabled only if that offset is at most the replica's end offset. A generation
names its rule in ``Generation.truncate_to`` (``truncation_table`` below). Entries are computed
on first use and kept (``PairTable``), so the hot path pays one dict access and no call.

- ``high-watermark`` (pre-0.11, ``KafkaTruncateToHighWatermark``): the replica's own high
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

from ..encoding.logs import PairTable

FOLLOWER_HW = -1  # the table's answer where the rule truncates to the follower's high watermark


def truncate_to_high_watermark(t: Any) -> Callable[[int, int], int]:
    def offset(leader_log: int, follower_log: int) -> int:
        return FOLLOWER_HW

    return offset


def kip101_offset_for_leader_epoch(t: Any) -> Callable[[int, int], int]:
    last_epoch, lookup = t.logs.last_epoch, t.logs.kip101_lookup

    def offset(leader_log: int, follower_log: int) -> int:
        epoch = last_epoch[follower_log]
        if epoch < 0:
            return 0  # empty follower log
        off = lookup(leader_log, epoch)
        return FOLLOWER_HW if off < 0 else off

    return offset


def kip279_first_mismatch_from_tail(t: Any) -> Callable[[int, int], int]:
    return t.logs.first_mismatch_from_tail


TRUNCATE_TO: dict[str, Callable[[Any], Callable[[int, int], int]]] = {
    "high-watermark": truncate_to_high_watermark,
    "kip101": kip101_offset_for_leader_epoch,
    "kip279": kip279_first_mismatch_from_tail,
}


def truncation_table(t: Any) -> PairTable:
    """The generation's rule as ``table[leader_log * t.logs.size + follower_log]``."""
    return PairTable(t.logs.size, TRUNCATE_TO[t.generation.truncate_to](t))
