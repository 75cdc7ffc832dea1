"""The C successor function: generated from the step descriptions (``isrcheck.model.native.cwriter``),
compiled once per source (``isrcheck.model.native.compiled``), built over the same tables as the
Python one (``isrcheck.model.steps.next.next_successors``).

What the C holds is the steps' control flow: the loops over replicas and requests, the enabling
tests, the next state's fields. The protocol's rules stay in Python and are passed in as data once
per configuration: the log tables (``length``, ``pow``, ``records``, ``epoch_at``), the
generation's caught-up tables (``isrcheck.model.steps.rules``), its truncation table
(``isrcheck.model.steps.truncation``) and KIP-279's offset for ``FollowerTruncate``, the request
decoding (``NamedRequests``) and the action objects of ``t.actions``. The pair tables are memos
filled on first use; the C side reads an entry through the Python memo once and keeps it.

Only the classic layout without option fields qualifies (the configurations ``packing`` packs):
stopped brokers, acks, flushed offsets and consumers keep the Python function, and so does any
generation whose ``Next`` is not a subset of ``NEXT_ORDER``. A variant's own step forms
(``Generation.forms``) are compiled like the built-in steps.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ..steps.controller import NamedRequests
from ..steps.described import action_tables
from ..steps.staging import rule_table
from . import compiled, pure_python

# Larger log tables would make the C caches of pair tables (4 bytes a pair) too big to allocate.
MAX_LOG_CODES = 4096


def qualifies(t: Any) -> bool:
    """Whether the C successor function can stand in for next.py's on this configuration."""
    lay, opts = t.layout, t.options
    return (not t.fields.initial() and lay.length == lay.requests_i + 1
            and t.fields.dead < 0 and t.fields.acked < 0 and t.fields.flushed < 0
            and opts.acks not in ("1", "all") and 1 <= t.config.log_size and t.logs.size <= MAX_LOG_CODES
            and lay.n <= 8 and t.config.max_leader_epoch <= 62)


def native_successors(t: Any, fallback: bool = True) -> Any | None:
    """The C ``successors(state)`` for tables ``t``, or ``None`` (no compiler, forced off, or the
    configuration does not qualify): the caller keeps next.py's function. A state with a value
    outside the ranges the C code handles (out of the model's reachable states, e.g. a
    counterexample to induction) goes to next.py's function; with ``fallback=False`` it raises
    ``ValueError`` (the compiled module's ``OutOfRange``) instead."""
    if pure_python() or not qualifies(t):
        return None
    from ..steps.next import NEXT_ORDER, next_successors

    gen, lay, logs = t.generation, t.layout, t.logs
    names = tuple(gen.next)
    if tuple(name for name in NEXT_ORDER if name in names) != names:
        return None  # next.py raises the error
    ext = compiled.kernel(t)
    if ext is None:
        return None
    isr_caught, isr_mult = rule_table(t, "caught", gen.isr_rule)
    hw_caught, hw_mult = rule_table(t, "caught", gen.hw_rule)
    size = logs.size

    def keyed(table: Any, mult: int) -> tuple[Any, int]:
        # A list is read by follower log only (mult 0); a PairTable by leader * size + follower.
        return table, (size if mult == 0 else size * size)

    follow_truncate = "BecomeFollowerAndTruncateTo" in names
    a = t.actions
    spec = SimpleNamespace(
        n=lay.n, nr_i=lay.next_record_id, ql_i=lay.q_leader, qi_i=lay.q_isr, rq_i=lay.requests_i,
        max_epoch=t.config.max_leader_epoch, max_records=t.config.max_records, log_size=t.config.log_size,
        size=size, epochs=logs.epochs, isr_mult=isr_mult, hw_mult=hw_mult,
        pow=logs.pow, length=logs.length, records=logs.records, epoch_at=logs.epoch_at,
        isr_caught=keyed(isr_caught, isr_mult), hw_caught=keyed(hw_caught, hw_mult),
        truncate_to=(rule_table(t, "offset", gen.truncate_to), size * size) if follow_truncate else None,
        first_mismatch=(rule_table(t, "offset", "kip279"), size * size),
        named=NamedRequests(lay.n), fallback=next_successors(t) if fallback else None,
        acts=tuple(getattr(a, name) for name in action_tables()),
    )
    return ext.Successors(spec)
