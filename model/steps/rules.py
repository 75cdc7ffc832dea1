"""When a leader counts a follower as caught up to an offset: the rule each generation applies
(``isrcheck.model.generations``) to ISR changes and to advancing the high watermark.

Each rule is written once, against the expression operations of
``isrcheck.explorer.symbolic.concrete`` (``o.and_``, ``o.sel``...) over two logs seen as arrays
(``Log``: end offset, record ids, record epochs), and read two ways (issue 26): the z3 relation of
``isrcheck.model.symbolic.derived`` calls it on symbolic logs; the explicit steps
(``isrcheck.model.steps.next`` and the C kernel, ``isrcheck.model.native.kernel``) read a table
filled by evaluating it on concrete logs (``ConcreteOps``), ``table[leader_log * size + follower_log]``:
a bit mask with bit ``end`` set when the follower's log counts as holding the leader's first
``end`` offsets. Whether the follower follows this leader (at its epoch, when fenced) is checked by
the step itself. Entries are computed on first use and kept, so a lookup on the hot path is one
dict access.

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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.symbolic.concrete import ConcreteOps

from ..encoding.logs import PairTable

CONCRETE = ConcreteOps()  # the rules' concrete reading (no choices: one evaluation per call)


@dataclass(frozen=True)
class Log:
    """A log as the rules read it: its end offset and, per offset, the record id and epoch
    (tuples when concrete, z3 arrays or lists of terms when symbolic)."""

    length: Any
    rid: Any
    rep: Any


def rec_eq(o: Any, a: Log, b: Log, k: Any) -> Any:
    """Logs ``a`` and ``b`` hold the same record (id and epoch) at offset ``k``."""
    return o.and_(o.sel(a.rid, k) == o.sel(b.rid, k), o.sel(a.rep, k) == o.sel(b.rep, k))


def common_prefix(o: Any, a: Log, b: Log, size: int | None) -> Any:
    """How many leading offsets hold the same record in ``a`` and ``b``."""
    shorter = o.ite(a.length < b.length, a.length, b.length)
    first = o.first_such(0, shorter, lambda k: o.not_(rec_eq(o, a, b, k)), size)
    return o.ite(first < 0, shorter, first)


def log_end(o: Any, leader: Log, follower: Log, end: Any, size: int | None) -> Any:
    return o.or_(end == 0, o.and_(end <= leader.length, end <= follower.length))


def follower_end(o: Any, leader: Log, follower: Log, end: Any, size: int | None) -> Any:
    return o.or_(end == 0, end <= follower.length)


def leader_epoch(o: Any, leader: Log, follower: Log, end: Any, size: int | None) -> Any:
    k = end - 1
    return o.or_(end == 0, o.and_(k < leader.length, k < follower.length,
                                  o.sel(follower.rep, k) == o.sel(leader.rep, k)))


def matching_prefix(o: Any, leader: Log, follower: Log, end: Any, size: int | None) -> Any:
    return end <= common_prefix(o, leader, follower, size)


CaughtUp = Callable[[Any, Log, Log, Any, "int | None"], Any]
CAUGHT_UP: dict[str, CaughtUp] = {
    "log-end": log_end, "follower-end": follower_end, "leader-epoch": leader_epoch,
    "matching-prefix": matching_prefix,
}


def concrete_logs(t: Any) -> list[Log | None]:
    """Every log code of the model's tables as a concrete ``Log`` (None for codes that are not logs)."""
    logs = t.logs
    out: list[Log | None] = []
    for recs in logs.records:
        out.append(None if recs is None else
                   Log(len(recs), tuple(logs.record_id(x) for x in recs), tuple(logs.record_epoch(x) for x in recs)))
    return out


def caught_up_table(t: Any, rule: str) -> tuple[Any, int]:
    """The table of ``rule`` for the model's log tables, and the multiplier of the leader's log
    code in its key: ``table[leader_log * mult + follower_log]``. A rule that reads only the
    follower's log (``follower-end``) is a plain list by follower log code (``mult`` 0), the
    cheapest lookup for the most common rule."""
    fn, ends, logs = CAUGHT_UP[rule], range(t.config.log_size + 1), concrete_logs(t)
    empty = Log(0, (), ())

    def mask(leader: Log | None, follower: Log | None) -> int:
        if leader is None or follower is None:
            return 0
        return sum(1 << end for end in ends if fn(CONCRETE, leader, follower, end, None))

    if rule == "follower-end":
        return [mask(empty, f) for f in logs], 0
    return PairTable(t.logs.size, lambda a, b: mask(logs[a], logs[b])), t.logs.size
