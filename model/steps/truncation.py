"""Where a replica truncates its log on becoming follower, per protocol generation.

Each rule is written once, against the expression operations of
``isrcheck.explorer.symbolic.concrete`` over the two logs (``isrcheck.model.steps.rules.Log``) and the
follower's high watermark, and read two ways (issue 26): the z3 relation
(``isrcheck.model.symbolic.derived``) calls it on symbolic logs; the explicit steps read a table filled by
evaluating it on concrete logs, ``table[leader_log * size + follower_log]``: the offset
``BecomeFollowerAndTruncateTo`` truncates to, or ``FOLLOWER_HW`` where the rule falls back to the
follower's own high watermark (the only part of the state a rule reads besides the two logs: the
table passes ``FOLLOWER_HW`` as that high watermark). The step is then enabled only if that offset
is at most the replica's end offset. A generation names its rule in ``Generation.truncate_to``
(``truncation_table`` below). Entries are computed on first use and kept (``PairTable``), so the
hot path pays one dict access and no call.

- ``high-watermark`` (pre-0.11, ``KafkaTruncateToHighWatermark``): the replica's own high
  watermark. Loses committed data when the replica is elected right after (KIP-101 scenario 1).
- ``kip101`` (KIP-101, Kafka 0.11, ``Kip101``): OffsetsForLeaderEpoch. The follower asks the leader
  for the end offset of the epoch of its own last record: the leader's end offset if its last
  record has that epoch, else the first offset with a larger epoch, else (leader log empty, or no
  larger epoch) the follower's HW. An empty follower truncates to 0. Divergence remains after fast
  leader changes (KAFKA-6361).
- ``kip279`` (KIP-279, Kafka 2.0, ``Kip279``): walk back from the follower's tail to the last
  offset where it holds the leader's exact record (id and epoch) and truncate just past it; 0 if the
  leader's log is empty or nothing matches (``FirstNonMatchingOffsetFromTail``; also where
  ``FollowerTruncate`` truncates, ``first_mismatch_table``).

Abstracted away: the OffsetsForLeaderEpoch request/response exchange (one atomic step that reads
the leader's *current* log, whatever that replica's own epoch: the hole KIP-320 closes) and the
leader-epoch cache (epochs are read from the records).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..encoding.logs import PairTable
from .rules import CONCRETE, Log, concrete_logs, rec_eq

FOLLOWER_HW = -1  # the table's answer where the rule truncates to the follower's high watermark


def high_watermark(o: Any, leader: Log, follower: Log, hw: Any, size: int | None, hints: Sequence[Any]) -> Any:
    return hw


def kip101(o: Any, leader: Log, follower: Log, hw: Any, size: int | None, hints: Sequence[Any]) -> Any:
    """``LookupOffsetForEpoch`` on the leader's log for the epoch of the follower's last record."""
    kf, kl = follower.length, leader.length
    epoch = o.sel(follower.rep, kf - 1)
    larger = o.first_such(0, kl, lambda k: o.sel(leader.rep, k) > epoch, size)
    lookup = o.ite(kl == 0, -1, o.ite(o.sel(leader.rep, kl - 1) == epoch, kl, larger))
    return o.ite(kf == 0, 0, o.ite(lookup < 0, hw, lookup))


def kip279(o: Any, leader: Log, follower: Log, hw: Any, size: int | None, hints: Sequence[Any]) -> Any:
    """One past the largest offset where the follower holds the leader's record, else 0. The
    ``hints`` (every broker's HW, symbolically) tell the prover where to compare that offset: a
    follower that holds the leader's records below some broker's HW truncates no lower than that
    HW (at 3 replicas the HW that matters may be a third broker's)."""
    hi = o.ite(leader.length < follower.length, leader.length, follower.length)
    return o.last_such(hi, lambda k: rec_eq(o, leader, follower, k), size, hints=tuple(hints))


TruncateTo = Callable[[Any, Log, Log, Any, "int | None", Sequence[Any]], Any]
TRUNCATE_TO: dict[str, TruncateTo] = {"high-watermark": high_watermark, "kip101": kip101, "kip279": kip279}


def offset_table(t: Any, rule: TruncateTo) -> PairTable:
    """``rule`` as ``table[leader_log * t.logs.size + follower_log]`` (``FOLLOWER_HW``: the follower's HW)."""
    logs = concrete_logs(t)

    def offset(leader: int, follower: int) -> int:
        a, b = logs[leader], logs[follower]
        return 0 if a is None or b is None else rule(CONCRETE, a, b, FOLLOWER_HW, None, ())

    return PairTable(t.logs.size, offset)


def truncation_table(t: Any) -> PairTable:
    """The generation's rule as ``table[leader_log * t.logs.size + follower_log]``."""
    return offset_table(t, TRUNCATE_TO[t.generation.truncate_to])


def first_mismatch_table(t: Any) -> PairTable:
    """KIP-279's offset (``FollowerTruncate``'s) as ``table[leader_log * t.logs.size + follower_log]``."""
    return offset_table(t, kip279)
