"""The durability options in symbolic form: which are encoded (``durability``: the steps'
``StepOptions``, the mapping the explicit steps use too, read by the steps' one description: the
acks rules of ``LeaderWrite`` and ``LeaderIncHighWatermark`` in
``isrcheck.model.steps.described``, broker stops and restarts, log flushes and unclean leader
election, availability-zone failures in ``isrcheck.model.steps.failures``, all derived by
``isrcheck.model.symbolic.derived``), and the promises ``AckedRecordNotLost``, ``LogMatching``
(``isrcheck.properties.durability``) and ``AckedRecordSurvives`` (``isrcheck.properties.consumers``).

Encoded for bounded model checking: ``acks`` (0, 1, all) with ``min.insync.replicas``,
``max_crashes`` with every kind of stop (controlled shutdown, crash, lossy), ``unclean_election`` (any,
highest-last-epoch), KIP-966's rule for a broker back from an unclean shutdown (read by the same
lines of ``failures`` as the explicit steps), ``expand_before_epoch_start`` (bug K6) and zone
failures (``max_az_failures`` with each replica's zone), and consumer reads (``consumer_reads``, the
record served at each offset). The same for proofs (the unbounded encoding): the steps are read from
the same descriptions; ``acked`` and ``served`` are arrays over every record id and offset, and the
properties quantify over them.

Abstracted away: as in the explicit steps, which these are (a stop is the broker stopping and the
controller noticing in one step; a restarted broker re-reads only the current LeaderAndIsr request).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..steps.described import StepOptions, step_options
from .properties import agree_below
from .vars import Extras, KafkaVars, every_index

CLASSIC = StepOptions()  # every option off: the classic model


def extras(opt: StepOptions, max_records: int | None, log_size: int | None = 0) -> Extras:
    """The option fields the symbolic state needs for the steps' options ``opt`` (bounds None:
    unbounded, the fields over record ids and offsets are arrays)."""
    return Extras(stops=opt.stops, flushed=opt.flushes, records=max_records if opt.acks != "none" else 0,
                  zones=opt.max_az_failures > 0, served=log_size if opt.consumer_reads != "off" else 0)


def durability(options: Any, unbounded: bool, consumers: Any = None, az_of: tuple[int, ...] = ()) -> StepOptions:
    """The steps' options (``StepOptions``, the one mapping the explicit steps use too) of a model's
    ``DurabilityOptions`` and ``ConsumerOptions``. Every option has an unbounded reading too (its
    description read on arrays and unbounded ints, ``isrcheck.model.symbolic.derived``): the
    perturbation limits (``max_crashes``, ``max_az_failures``) stay, as the protocol's parameters."""
    return step_options(options, consumers, az_of)


def acked_record_survives(n: int, size: int | None) -> Callable[[Any, KafkaVars], Any]:
    """Every acknowledged record is in some replica's log, running or stopped (no acknowledged
    record lost by every replica: an availability zone's failure)."""

    def prop(o: Any, v: KafkaVars) -> Any:
        return every_index(o, v.acked, lambda x, acked: o.implies(acked, o.or_(*(
            o.exists(0, v.length[r], lambda k, r=r: o.sel(v.rid[r], k) == x, size) for r in range(n)))))

    return prop


def consistent_read(n: int, size: int | None, conflict: int) -> Callable[[Any, KafkaVars], Any]:
    """No offset was served two different records, and every record served is at its offset in
    the established leader's log (``isrcheck.properties.consumers``' ConsistentRead)."""

    def prop(o: Any, v: KafkaVars) -> Any:
        parts = [every_index(o, v.served, lambda off, x: x != conflict)]
        for lead in range(n):
            established = o.and_(v.ql == lead, v.ld[lead] == lead, v.ep[lead] == v.nreq - 1)
            parts.append(every_index(o, v.served, lambda off, x, established=established, lead=lead: o.implies(
                o.and_(established, x != 0), o.and_(off < v.length[lead], o.sel(v.rid[lead], off) + 1 == x))))
        return o.and_(*parts)

    return prop


def popcount_at_least(o: Any, bits: list, m: int) -> Any:
    """At least ``m`` of the Booleans ``bits`` hold (small ``n``: a disjunction of subsets)."""
    if m <= 0:
        return o.true
    from itertools import combinations

    return o.or_(*(o.and_(*c) for c in combinations(bits, m)))


def acked_record_not_lost(n: int, size: int | None) -> Callable[[Any, KafkaVars], Any]:
    """Every acknowledged record is in the log of the established leader (the quorum leader once
    it leads at the quorum's current epoch)."""

    def prop(o: Any, v: KafkaVars) -> Any:
        parts = []
        for lead in range(n):
            established = o.and_(v.ql == lead, v.ld[lead] == lead, v.ep[lead] == v.nreq - 1)
            parts.append(every_index(o, v.acked, lambda x, acked, lead=lead, established=established: o.implies(
                o.and_(established, acked), o.exists(0, v.length[lead], lambda k: o.sel(v.rid[lead], k) == x, size))))
        return o.and_(*parts)

    return prop


def log_matching(n: int, size: int | None) -> Callable[[Any, KafkaVars], Any]:
    """Any two replicas hold the same record at every offset below both their HWs."""

    def prop(o: Any, v: KafkaVars) -> Any:
        parts = []
        for a in range(n):
            for b in range(a + 1, n):
                hw = o.ite(v.hw[b] < v.hw[a], v.hw[b], v.hw[a])
                parts.append(agree_below(o, v, a, b, hw, size))
        return o.and_(*parts)

    return prop
