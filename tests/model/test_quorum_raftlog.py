"""The quorum's log arithmetic (``isrcheck.model.quorum.raftlog``) against KRaft.tla's definitions
written out literally (sets and CHOOSE over offsets 1..Len(log)), on every log of up to three
entries with epochs 1..3 and every query with offsets 0..4 and epochs 0..4. The small runs compared
with TLC never reach a diverging fetch (it needs two elections at three voters), so these
definitions are checked here on their own."""

from __future__ import annotations

from itertools import product

from isrcheck.model.quorum.raftlog import (
    compare_entries,
    end_offset_for_epoch,
    highest_common_offset,
    new_high_watermark,
    valid_fetch_position,
)

LOGS = [tuple((e, 0) for e in epochs) for k in range(4) for epochs in product(range(1, 4), repeat=k)]


def spec_highest_common_offset(log, end_offset, epoch):
    if not log:
        return 0
    below = {o for o in range(1, len(log) + 1) if compare_entries(o, log[o - 1][0], end_offset, epoch) <= 0}
    return max(below) if below else 0


def spec_end_offset_for_epoch(log, last_fetched_epoch):
    if not log:
        return 0, 0
    at_or_below = {o for o in range(1, len(log) + 1) if log[o - 1][0] <= last_fetched_epoch}
    if not at_or_below:
        return 0, 0
    o = max(at_or_below)
    return o, log[o - 1][0]


def spec_valid_fetch_position(log, fetch_offset, last_fetched_epoch):
    if fetch_offset == 0 and last_fetched_epoch == 0:
        return True
    o, e = spec_end_offset_for_epoch(log, last_fetched_epoch)
    return fetch_offset <= o and last_fetched_epoch == e


def spec_new_high_watermark(log, me, epoch, hw, end_offsets, servers):
    def agree(offset):
        return {me} | {k for k in servers if end_offsets[k] >= offset}

    agreeing = {o for o in range(1, len(log) + 1) if len(agree(o)) * 2 > len(servers)}
    if agreeing and log[max(agreeing) - 1][0] == epoch:
        return max(agreeing)
    return hw


def test_log_arithmetic_is_the_specs():
    for log in LOGS:
        for offset, epoch in product(range(5), range(5)):
            assert highest_common_offset(log, offset, epoch) == spec_highest_common_offset(log, offset, epoch)
            assert valid_fetch_position(log, offset, epoch) == spec_valid_fetch_position(log, offset, epoch)
        for epoch in range(5):
            assert end_offset_for_epoch(log, epoch) == spec_end_offset_for_epoch(log, epoch)


def test_high_watermark_is_the_specs():
    servers = range(3)
    for log in LOGS:
        for ends in product(range(4), repeat=2):
            end_offsets = (0, *ends)
            for epoch, hw in product(range(1, 4), range(3)):
                assert (new_high_watermark(log, 0, epoch, hw, end_offsets, 3)
                        == spec_new_high_watermark(log, 0, epoch, hw, end_offsets, servers))
