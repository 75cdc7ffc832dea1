"""A replica's functions generated from their one description (``isrcheck.model.kraft.functions``)
as straight-line Python, one function per leader, for ``replica.Replica`` and the generated steps
(``staging.py``) to call: the description is read once with staged values (the source of an
expression, not its value) instead of with ``ConcreteOps`` on every call, which was measured 8 to
25 % slower on ``bench/kraft_steps_ab.py``.

``commit_offset``: ``GetCommitOffset`` + 1 of leader ``b`` as ``f(members, leo, followers)``, the
members a bit mask and the followers b's (LEO, broker epoch) pairs; a member is a bit test, the
other brokers' indices are constants, each follower's LEO and each running minimum a local; the
description's first case (``functions.unseen_member``) is an early return, as in the hand-written
copy.

``last_offset_for_epoch``: ``LastOffsetForEpoch`` as ``f(log, leader_epoch, epoch)``, one for a
broker answering as a follower and one as the leader; the description's first case
(``functions.answers_at_once``) is an early return, as the hand-written copy had it, so the log is
searched only where it is needed; a search is a generator expression over the offsets.

Abstracted away: nothing; this is a translation of ``functions.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from isrcheck.model.steps.staging import Staged, Writer, const, src

from . import functions
from .fields import NIL


class Folding:
    """The classic writer's constant folding of ``and_``/``or_``/``not_``/``ite`` on Python source,
    borrowed by the KRaft writers (``staging.KraftWriter`` and ``_Ops`` below)."""

    AND, OR = Writer.AND, Writer.OR
    _text = staticmethod(src)
    and_ = Writer.and_
    or_ = Writer.or_
    not_ = Writer.not_
    ite = Writer.ite


class _Ops(Folding):
    """The operations ``functions.py`` uses, as source with constant folding (the classic writer's)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    @staticmethod
    def first_such(lo: object, hi: object, pred: Callable[[Staged], object], size: int | None = None) -> Staged:
        return Staged(f"next((i for i in range({src(lo)}, {src(hi)}) if {src(pred(Staged('i')))}), -1)")

    @staticmethod
    def last_such(hi: object, pred: Callable[[Staged], object], size: int | None = None) -> Staged:
        return Staged(f"next((i + 1 for i in range({src(hi)} - 1, -1, -1) if {src(pred(Staged('i')))}), 0)")

    def let(self, v: object) -> object:
        if const(v):
            return v
        name = f"m{len(self.lines)}"
        self.lines.append(f"    {name} = {src(v)}")
        return Staged(name)


def commit_offset_source(n: int, b: int) -> str:
    """The source of ``commit_offset_{b}`` on ``n`` brokers."""
    o = _Ops()
    members = [Staged(f"(members & {1 << f})") for f in range(n)]
    o.lines = [f"    f{f} = followers[{f}][0]" for f in range(n) if f != b]  # each read once
    fleo = [Staged(f"f{f}") for f in range(n)]
    reads, o.lines = o.lines, []
    unseen = functions.unseen_member(o, b, members, fleo)
    low = functions.least_leo(o, b, members, Staged("leo"), fleo, o.let)
    return "\n".join([f"def commit_offset_{b}(members, leo, followers):", *reads,
                      f"    if {src(unseen)}:", "        return 0", *o.lines, f"    return {src(low)}"])


_FUNCTIONS: dict[int, tuple[Callable[[int, int, tuple], int], ...]] = {}  # brokers -> one per leader


def commit_offsets(n: int) -> tuple[Callable[[int, int, tuple], int], ...]:
    """``commit_offset`` of each leader on ``n`` brokers, compiled once per ``n``."""
    fns = _FUNCTIONS.get(n)
    if fns is None:
        namespace: dict[str, object] = {"NIL": NIL}
        source = "\n".join(commit_offset_source(n, b) for b in range(n))
        exec(compile(source, f"<isrcheck generated KRaft replica functions, {n} brokers>", "exec"), namespace)
        fns = _FUNCTIONS[n] = tuple(namespace[f"commit_offset_{b}"] for b in range(n))  # type: ignore[misc]
    return fns


def last_offset_for_epoch_source(values: int, is_leader: bool) -> str:
    """The source of ``last_offset_for_epoch_{is_leader}``, records ``epoch * values + value``."""
    o = _Ops()
    epoch, length = Staged("epoch"), Staged("len(log)")

    def log_epoch(off: object) -> Staged:
        return Staged(f"(log[{src(off)}] // {values})")

    quick = functions.answers_at_once(o, log_epoch, length, epoch, Staged("leader_epoch") if is_leader else None)
    floor, end = functions.last_offset_in_log(o, log_epoch, length, epoch, None, o.let)
    return "\n".join([f"def last_offset_for_epoch_{is_leader}(log, leader_epoch, epoch):",
                      f"    if {src(quick)}:", f"        return epoch, {src(length)}",
                      *o.lines, f"    return {src(floor)}, {src(end)}"])


_LAST_OFFSET: dict[int, tuple[Callable[[tuple, int, int], tuple[int, int]], ...]] = {}  # values -> (follower, leader)


def last_offsets_for_epoch(values: int) -> tuple[Callable[[tuple, int, int], tuple[int, int]], ...]:
    """``last_offset_for_epoch`` answering as a follower and as the leader, compiled once per ``values``."""
    fns = _LAST_OFFSET.get(values)
    if fns is None:
        namespace: dict[str, object] = {}
        source = "\n".join(last_offset_for_epoch_source(values, leader) for leader in (False, True))
        exec(compile(source, f"<isrcheck generated KRaft LastOffsetForEpoch, {values} values>", "exec"), namespace)
        fns = _LAST_OFFSET[values] = (namespace["last_offset_for_epoch_False"],  # type: ignore[assignment]
                                      namespace["last_offset_for_epoch_True"])
    return fns
