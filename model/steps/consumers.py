"""The consumer step (``consumer_reads``): a consumer's fetch served by a leader or, with KIP-392
follower fetching (``replica.selector.class``, ``client.rack``), by a follower.

It builds whole next states (the ghost ``served`` field of ``isrcheck.model.encoding.fields``); the
properties that read it are in ``isrcheck.properties.consumers``.

Abstracted away: consumer groups, offsets commits and positions (a consumer may read any offset
below the serving replica's HW at any time), fetch sessions and isolation levels other than
``read_uncommitted`` (``FetchIsolation.HIGH_WATERMARK``).
"""

from __future__ import annotations

from typing import Any

from ..encoding.state import HW, LEADER
from .controller import Step


def consumer_fetch(t: Any) -> Step:
    """``ConsumerFetch``: a running replica that presumes leadership (or, with KIP-392, follows a
    leader) serves the record at an offset below its HW. The ghost ``served[offset]`` records the
    first record id served there (+1); a different record served at the same offset later marks
    the offset CONFLICT (two consumers read different records at one offset). A read that changes
    no ghost value is not a new state and is not generated."""
    from_followers = t.consumers.consumer_reads == "any"
    acts = t.actions.consumer_fetch
    served_i = t.fields.served
    dead_i = t.fields.dead
    bit = t.layout.bit
    records, epochs = t.logs.records, t.logs.epochs
    conflict = t.config.max_records + 1
    blocks = tuple((r, t.layout.base[r]) for r in t.layout.replicas)

    def step(s: tuple, out: list) -> None:
        dead = s[dead_i] if dead_i >= 0 else 0
        for r, b in blocks:
            leader = s[b + LEADER]
            if leader < 0 or (leader != r and not from_followers) or dead & bit[r]:
                continue
            recs = records[s[b]]
            for off in range(s[b + HW]):
                rid = recs[off] // epochs
                i = served_i + off
                now = s[i]
                if now == rid + 1 or now == conflict:
                    continue
                out.append((acts[r][off][rid], s[:i] + (rid + 1 if now == 0 else conflict,) + s[i + 1 :]))

    return step
