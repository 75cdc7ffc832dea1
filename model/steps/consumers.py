"""The consumer step (``consumer_reads``): a consumer's fetch served by a leader or, with KIP-392
follower fetching (``replica.selector.class``, ``client.rack``), by a follower.

Written once, as the classic steps are (``isrcheck.model.steps.described``), and run as part of the
generated Python successor function (``isrcheck.model.steps.staging``); it updates the ghost
``served`` field of ``isrcheck.model.encoding.fields``, which the properties of
``isrcheck.properties.consumers`` read; the z3 relation (``isrcheck.model.symbolic.derived``) reads
the same description, one instance per replica and offset.

Abstracted away: consumer groups, offsets commits and positions (a consumer may read any offset
below the serving replica's HW at any time), fetch sessions and isolation levels other than
``read_uncommitted`` (``FetchIsolation.HIGH_WATERMARK``).
"""

from __future__ import annotations

from typing import Any

from .described import option_step


@option_step("ConsumerFetch", ("r",), "consumer_fetch", nested=("off",))
def consumer_fetch(x: Any) -> None:
    """``ConsumerFetch``: a running replica that presumes leadership (or, with KIP-392, follows a
    leader) serves the record at an offset below its HW. The ghost ``served[offset]`` records the
    first record id served there (+1); a different record served at the same offset later marks
    the offset CONFLICT (``x.served_conflict``: two consumers read different records at one offset).
    A read that changes no ghost value is not a new state and is not generated."""
    conflict = x.served_conflict
    for r in x.replicas("r"):
        if x.opt.consumer_reads == "any":
            x.require(x.ld(r) >= 0)
        else:
            x.require(x.ld(r) == r)
        x.require(x.running(r))
        for off in x.offsets("off", x.hw(r)):
            rid = x.let(x.rec_id(r, off))
            now = x.let(x.served(off))
            x.require(now != rid + 1, now != conflict)
            x.put("served", off, x.ite(now == 0, rid + 1, conflict))
            x.emit(r, off, rid)
