"""A replica's functions the KRaft steps reach, written once against the step operations
(``isrcheck.model.kraft.described.Ops``) and read both ways, as the steps are: the explicit
reading (``staging.py``) writes them into the generated source of each step that calls them, the
z3 reading (``symbolic/derived.py``) runs them on the state variables.

- ``maybe_advance_hw``: ``MaybeAdvanceHighWatermark`` (``v3_5_functions.tla`` /
  ``kip_966_functions.tla``): the commit offset of the members the leader counts, the
  generation's ``CanAdvanceHwm``, and where it holds the HW and the ghost variables' updates
  (``raise_hw``);
- ``raise_hw``, ``send_acks``, ``fail_pending_writes``: its writes, ``SendAcksFor`` and
  ``MaybeFailPendingWrites`` (the ghost variables: acknowledgements, the true HW and the records
  consumed below it);
- ``hw_on_partition_change``: ``MaybeUpdateHwmAndAckOnPartitionChange`` (acknowledgements
  negative while the maximal ISR is below MinISR: NotEnoughReplicasAfterAppend);
- ``renounce``: ``EnsureLeadershipRenounced`` (pending writes fail as ``functions.renounce_fails``
  says; follower state, the pending AlterPartition and the write floor cleared).

What the operations answer per reading is only the state's own encoding: GetCommitOffset of a
leader (``x.commit_offset``, generated from ``functions.py``), a ghost set's member
(``x.ghost``, ``x.ghost_add``), whether a value lies in a stretch of a log (``x.next_log_holds``),
and the consumed records' copy (``x.consume_up_to``). The functions over offsets and epochs
themselves are ``functions.py``'s, the rules where the generations differ ``rules.py``'s. The
split fetch (explicit only) calls ``advance_hw`` through a function generated from it
(``staging.advance_hw_functions``).

Reads (``x.get``, ``x.ghost``) see the state before the step, as in the steps: no step writes the
HW, the write floor or the acknowledgements before it calls one of these, and each step calls at
most one that acknowledges, so the hand-written copies, which read the next state there, agree
(``tests/model/test_kraft_symbolic.py`` and the successor digests check it). The log, which
WriteRecordToLeader appends to first, is read as the updates left it (``x.next_log_end``,
``x.next_log_holds``).

Abstracted away: nothing beyond the model's (see ``isrcheck.model.kraft``).
"""

from __future__ import annotations

from typing import Any

from . import functions


def maybe_advance_hw(x: Any, b: int, isr: Any, maximal_isr: Any, leo: Any, known: bool, positive: Any) -> Any:
    """``MaybeAdvanceHighWatermark`` of leader ``b`` with ISR ``isr`` and maximal ISR ``maximal_isr``,
    its own LEO taken as ``leo``; ``known``: with what b knows of its followers after the step's
    updates so far (else before the step); ``positive``: whether the acknowledgements it sends are
    positive. Returns the HW after it."""
    old = x.get(b, "hw")
    members = functions.hw_members(x.config, isr, maximal_isr)  # a constant choice of the configuration
    new = x.commit_offset(b, members, leo, known)
    adv = x.later(functions.can_advance(x, x.hw_isr_ok(isr), old, new))
    raise_hw(x, b, old, new, positive, adv)
    return x.later(x.ite(adv, new, old))


def raise_hw(x: Any, b: int, old: Any, new: Any, positive: Any, when: Any) -> None:
    """``MaybeAdvanceHighWatermark``'s writes where ``when`` holds: the HW, ``SendAcksFor`` from the
    old HW to the new one (positive) or to the LEO (negative), and the ghost true HW with the
    records consumed below it (``invTrueHwm``)."""
    x.put(b, "hw", x.ite(when, new, x.get(b, "hw")))
    send_acks(x, b, old, x.ite(positive, new, x.next_log_end(b)), positive, when)
    x.consume_up_to(b, new, when)


def send_acks(x: Any, b: int, lower: Any, upper: Any, positive: Any, when: Any) -> None:
    """``SendAcksFor`` where ``when`` holds: each value at an offset from ``lower`` (at least b's
    write floor: written in its current leadership) below ``upper`` (at most its LEO), sent and not
    yet answered, is acknowledged (``positive``) or failed."""
    floor, end = x.get(b, "write_floor"), x.next_log_end(b)
    lo, hi = x.ite(lower > floor, lower, floor), x.ite(upper < end, upper, end)
    for v in range(x.config.values):
        new = x.later(x.and_(when, x.value_sent(v), x.not_(x.ghost("acked", v)), x.not_(x.ghost("nacked", v)),
                             x.next_log_holds(b, lo, hi, v)))
        x.ghost_add("acked", v, x.and_(positive, new))
        x.ghost_add("nacked", v, x.and_(x.not_(positive), new))


def fail_pending_writes(x: Any, b: int, when: Any) -> None:
    """``MaybeFailPendingWrites`` where ``when`` holds: SendAcksFor from b's HW to its LEO, negative."""
    send_acks(x, b, x.get(b, "hw"), x.log_end(b), False, when)


def advance_hw(x: Any, b: int, leo: Any, known: bool = False) -> Any:
    """The HW after a write or a fetch: ``maybe_advance_hw`` on b's own ISR and maximal ISR, the
    acknowledgements positive."""
    return maybe_advance_hw(x, b, x.get(b, "md_isr"), x.get(b, "md_maximal_isr"), leo, known, True)


def hw_on_partition_change(x: Any, b: int, isr: Any, maximal_isr: Any) -> None:
    """``MaybeUpdateHwmAndAckOnPartitionChange``: ``maybe_advance_hw`` on the new ISR and maximal ISR,
    with the followers b knew before the step; acknowledgements are negative while the maximal ISR
    is below MinISR (NotEnoughReplicasAfterAppend)."""
    maybe_advance_hw(x, b, isr, maximal_isr, x.log_end(b), False, x.at_least(maximal_isr, x.config.min_isr))


def renounce(x: Any, b: int, isr: Any, leader: Any) -> None:
    """``EnsureLeadershipRenounced`` at a record with ISR ``isr`` and leader ``leader``: b's writes
    above its HW fail where ``functions.renounce_fails`` says so (SendAcksFor, negative); what b
    knew as a leader is cleared."""
    enough = x.at_least(isr, x.config.min_isr)
    fail_pending_writes(x, b, functions.renounce_fails(x, b, x.get(b, "hw"), x.log_end(b), enough, leader))
    x.blank_leadership(b)
