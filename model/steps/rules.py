"""When a leader counts a follower as caught up to an offset: the rule each generation applies
(``isrcheck.model.generations``) to ISR changes and to advancing the high watermark.

A rule is a table over pairs of logs, ``table[leader_log * size + follower_log]``: a bit mask
with bit ``end`` set when the follower's log counts as holding the leader's first ``end`` offsets
(bit 0 is always set). Whether the follower follows this leader (at its epoch, when fenced) is
checked by the step itself. Entries are computed on first use and kept, so a lookup on the hot
path is one dict access.

- ``log-end`` (``IsFollowerCaughtUp``, ``KafkaReplication.tla``): ``end`` is within both logs;
- ``follower-end`` (``HasFollowerReachedHighWatermark`` of ``Kip320.tla``, and every generation's
  HW rule before KIP-320): ``end`` is within the follower's log;
- ``leader-epoch`` (``IsFollowerCaughtUpToLeaderEpoch``, ``Kip320FirstTry.tla``): ``end`` is 0, or
  both logs hold offset ``end - 1`` with the same record epoch;
- ``matching-prefix`` (truncation on fetch): ``end`` is within the logs' common prefix, the part
  of the follower's log the leader has seen in non-diverging fetches
  (``Partition.updateFollowerFetchState`` is not called for a diverging read).
"""

from __future__ import annotations

from typing import Any

from ..encoding.logs import PairTable


def _upto(k: int) -> int:
    """The mask of offsets 0..k."""
    return (1 << (k + 1)) - 1


def caught_up_table(t: Any, rule: str) -> tuple[Any, int]:
    """The table of ``rule`` for the model's log tables, and the multiplier of the leader's log
    code in its key: ``table[leader_log * mult + follower_log]``. A rule that reads only the
    follower's log (``follower-end``) is a plain list by follower log code (``mult`` 0), the
    cheapest lookup for the most common rule."""
    length, epoch_at, common = t.logs.length, t.logs.epoch_at, t.logs.common_prefix

    def log_end(leader: int, follower: int) -> int:
        return _upto(min(length[leader], length[follower]))

    def leader_epoch(leader: int, follower: int) -> int:
        le, fe = epoch_at[leader], epoch_at[follower]
        return 1 | sum(1 << (off + 1) for off in range(min(len(le), len(fe))) if le[off] == fe[off])

    def matching_prefix(leader: int, follower: int) -> int:
        return _upto(common(leader, follower))

    if rule == "follower-end":
        return [_upto(k) if k >= 0 else 0 for k in length], 0
    rules = {"log-end": log_end, "leader-epoch": leader_epoch, "matching-prefix": matching_prefix}
    return PairTable(t.logs.size, rules[rule]), t.logs.size
