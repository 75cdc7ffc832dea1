"""The log arithmetic of KRaft.tla: comparing last entries, the end offset of an epoch, the highest
common entry a diverging follower truncates to, the leader's high watermark.

A log is a tuple of ``(epoch, value)``; offsets count from 1 as in the spec (offset k is ``log[k - 1]``),
and offset 0 with epoch 0 stands for "no entry". The spec finds these with CHOOSE over the log; here
they are loops from the end, which pick the same entry (the highest offset that qualifies).

Abstracted away: the implementation's epoch cache (the spec reads the log itself, and so do we).
"""

from __future__ import annotations


def last_epoch(log: tuple) -> int:
    """``LastEpoch``: the epoch of the last entry, 0 for an empty log."""
    return log[-1][0] if log else 0


def compare_entries(offset1: int, epoch1: int, offset2: int, epoch2: int) -> int:
    """``CompareEntries``: epoch first, then offset; 1, 0 or -1."""
    if epoch1 > epoch2 or (epoch1 == epoch2 and offset1 > offset2):
        return 1
    if epoch1 == epoch2 and offset1 == offset2:
        return 0
    return -1


def highest_common_offset(log: tuple, end_offset: int, epoch: int) -> int:
    """``HighestCommonOffset(...).offset``: the highest offset whose entry is at or below
    ``(end_offset, epoch)``; 0 when there is none."""
    for offset in range(len(log), 0, -1):
        if compare_entries(offset, log[offset - 1][0], end_offset, epoch) <= 0:
            return offset
    return 0


def end_offset_for_epoch(log: tuple, last_fetched_epoch: int) -> tuple[int, int]:
    """``EndOffsetForEpoch``: (offset, epoch) of the highest entry at or below the epoch; (0, 0) if none."""
    for offset in range(len(log), 0, -1):
        if log[offset - 1][0] <= last_fetched_epoch:
            return offset, log[offset - 1][0]
    return 0, 0


def valid_fetch_position(log: tuple, fetch_offset: int, last_fetched_epoch: int) -> bool:
    """``ValidFetchPosition``: the follower's position is consistent with the leader's log."""
    if fetch_offset == 0 and last_fetched_epoch == 0:
        return True
    offset, epoch = end_offset_for_epoch(log, last_fetched_epoch)
    return fetch_offset <= offset and last_fetched_epoch == epoch


def new_high_watermark(log: tuple, me: int, epoch: int, hw: int, end_offsets: tuple, n: int) -> int:
    """``NewHighwaterMark``: the highest offset a majority (the leader counted) has reached, if its
    entry is of the leader's epoch; else the high watermark unchanged."""
    for offset in range(len(log), 0, -1):
        agree = 1 + sum(1 for k in range(n) if k != me and end_offsets[k] >= offset)
        if agree * 2 > n:
            return offset if log[offset - 1][0] == epoch else hw
    return hw
