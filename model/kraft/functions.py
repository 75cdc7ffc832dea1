"""A replica's functions written once against the operations interface, read by the explicit
replica (``replica.py``, with ``ConcreteOps`` on ints) and by the symbolic steps
(``symbolic/steps.py`` and ``symbolic/derived.py``, on z3 terms), as ``rules.py`` is for the rules
where the generations differ. A change of one of these functions is a change of this file only.

- ``commit_offset``: ``GetCommitOffset`` + 1, the least LEO among the members the leader counts,
  as it last saw them (0 while one of them is unseen), in two parts the generated source runs as
  an early return and the rest (``unseen_member``, ``least_leo``);
- ``last_offset_for_epoch``: ``LastOffsetForEpoch``, in two parts the generated source runs as
  an early return and the rest (``answers_at_once``, ``last_offset_in_log``);
- ``renounce_fails``: when ``EnsureLeadershipRenounced`` fails a former leader's pending writes;
- ``truncation_point``: ``FindTruncatePoint`` (``v3_5_functions.tla`` / ``kip_966_functions.tla``),
  the highest offset a follower shares with the leader's ``LastOffsetForEpoch`` answer;
- ``hw_members``: whom the leader counts for its high watermark (KIP-497's maximal ISR, or the ISR
  alone: bug K7), a choice of the configuration, so a constant of either reading;
- ``can_advance``: ``CanAdvanceHwm``, the new HW above the old one and the generation's ISR rule
  (``rules.hw_isr_ok``, passed in as its value: the explicit side looks it up in a table by mask).

Abstracted away: nothing; these are the specs' functions over offsets and epochs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .fields import NIL


def unseen_member(o: Any, b: int, members: Sequence[Any], fleo: Sequence[Any]) -> Any:
    """``GetCommitOffset``'s first case: a member other than leader ``b`` it has not seen fetch."""
    return o.or_(*(o.and_(members[f], fleo[f] == NIL) for f in range(len(fleo)) if f != b))


def least_leo(o: Any, b: int, members: Sequence[Any], leo: Any, fleo: Sequence[Any],
              let: Callable[[Any], Any] = lambda v: v) -> Any:
    """``GetCommitOffset`` + 1 otherwise: the least of b's own LEO and its members' as b saw them.
    ``let`` names each running minimum once (the generated source does, so its text grows linearly
    with the brokers, not doubly)."""
    low = leo
    for f in range(len(fleo)):
        if f != b:
            low = let(o.ite(o.and_(members[f], fleo[f] < low), fleo[f], low))
    return low


def commit_offset(o: Any, b: int, members: Sequence[Any], leo: Any, fleo: Sequence[Any]) -> Any:
    """``GetCommitOffset`` + 1 for leader ``b``: ``members`` a broker set (Booleans), ``leo`` b's own
    LEO, ``fleo`` the follower LEOs b last saw (NIL: none yet); 0 while a member is unseen."""
    return o.ite(unseen_member(o, b, members, fleo), 0, least_leo(o, b, members, leo, fleo))


def answers_at_once(o: Any, log_epoch: Callable[[Any], Any], length: Any, epoch: Any,
                    leader_epoch: Any | None) -> Any:
    """``LastOffsetForEpoch``'s first case, answered (``epoch``, the LEO): an empty log, ``epoch``
    the last record's, or the broker's own leader epoch (``leader_epoch``: its metadata's leader
    epoch where it answers as the leader, None where as a follower). ``log_epoch(off)``: the epoch
    of the record at ``off``."""
    cases = [length == 0, epoch == log_epoch(length - 1)]
    if leader_epoch is not None:
        cases.append(leader_epoch == epoch)
    return o.or_(*cases)


def last_offset_in_log(o: Any, log_epoch: Callable[[Any], Any], length: Any, epoch: Any, size: int | None = None,
                       let: Callable[[Any], Any] = lambda v: v) -> tuple[Any, Any]:
    """``LastOffsetForEpoch`` otherwise: (the largest epoch <= ``epoch`` in the log, else ``epoch``;
    where the first larger epoch starts, else the LEO). A log's epochs never decrease."""
    first = let(o.first_such(0, length, lambda off: log_epoch(off) > epoch, size))
    upto = let(o.last_such(length, lambda off: log_epoch(off) <= epoch, size))
    return o.ite(upto == 0, epoch, log_epoch(upto - 1)), o.ite(first == -1, length, first)


def last_offset_for_epoch(o: Any, log_epoch: Callable[[Any], Any], length: Any, epoch: Any,
                          leader_epoch: Any | None, size: int | None = None) -> tuple[Any, Any]:
    """``LastOffsetForEpoch`` (``v3_5_functions.tla`` / ``kip_966_functions.tla``): (epoch, end offset)."""
    quick = answers_at_once(o, log_epoch, length, epoch, leader_epoch)
    floor, end = last_offset_in_log(o, log_epoch, length, epoch, size)
    return o.ite(quick, epoch, floor), o.ite(quick, length, end)


def renounce_fails(o: Any, b: Any, hw: Any, leo: Any, isr_enough: Any, new_leader: Any) -> Any:
    """``EnsureLeadershipRenounced``: b's writes above its HW fail where the new ISR is below MinISR
    (``isr_enough`` false) or b is no longer the leader."""
    return o.and_(hw < leo, o.or_(o.not_(isr_enough), new_leader != b))


def truncation_point(o: Any, local: tuple[Any, Any], diverging: tuple[Any, Any]) -> Any:
    """``FindTruncatePoint``: ``local`` is the follower's own ``LastOffsetForEpoch`` of the
    leader's diverging epoch; where it disagrees on the epoch or ends earlier, its end is the point,
    else the leader's end is."""
    (local_epoch, local_end), (epoch, end) = local, diverging
    return o.ite(o.or_(local_epoch != epoch, local_end < end), local_end, end)


def hw_members(config: Any, isr: Any, maximal_isr: Any) -> Any:
    """Whom the leader counts for its HW: the maximal ISR (KIP-497), or only the ISR (bug K7)."""
    return maximal_isr if config.hw_over_maximal_isr else isr


def can_advance(o: Any, isr_ok: Any, old: Any, new: Any) -> Any:
    """``CanAdvanceHwm``: ``isr_ok`` is ``rules.hw_isr_ok`` of the leader's ISR."""
    return o.and_(new > old, isr_ok)
