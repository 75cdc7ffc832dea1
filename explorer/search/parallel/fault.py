"""Where in a chunk's expansion the model raised, and which of its functions it was.

The parallel engine's expander (``isrcheck.explorer.search.parallel.worker.Expander``) calls the model's functions
(``successors``, ``within_bounds``, ``canonical``, ``pack``/``unpack``, the property predicates)
from two loops. When one raises, the coordinator expands the chunk again in its own process (a
worker's traceback does not survive the pipe) and reads the traceback: the loop's frame says which
frontier state (``pos``) and which successor (``succ``) it was at, and the frame it had called
says which function raised. That is what the one-process engine's report names
(``isrcheck.explorer.search.local``), so a fault reads the same whatever ``--workers`` is.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import CodeType
from typing import Any

from isrcheck.explorer.contract import within_bounds
from isrcheck.explorer.search.audit import audit_successors
from isrcheck.explorer.search.local import code_of
from isrcheck.explorer.search.parallel.worker import Expander


@dataclass(frozen=True)
class Fault:
    """``pos``: the frontier position (in the chunk) of the state being expanded, or None;
    ``what``: the function that raised, as reports name it; ``successor``: the successor being
    evaluated when a predicate or ``canonical`` raised."""

    pos: int | None
    what: str
    successor: Any = None


def _codes(fn: Any) -> set[CodeType]:
    """A function's code and the code of the comprehensions inside it."""
    code = code_of(fn)
    if code is None:
        return set()
    return {code, *(c for c in code.co_consts if isinstance(c, CodeType))}


_LOOPS = _codes(Expander.expand) | _codes(Expander.expand_plain)


def locate_fault(exc: BaseException, ctx: Any, expander: Expander) -> Fault:
    """The ``Fault`` of ``exc``, raised inside ``expander.expand``; ``ctx``: the run's context
    (model, properties, canonical form, pack/unpack)."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    loop_at = max((i for i, f in enumerate(frames) if f.f_code in _LOOPS), default=None)
    if loop_at is None:
        return Fault(None, "successors(state)")
    outer = next((f for f in reversed(frames[:loop_at + 1]) if "pos" in f.f_locals), frames[loop_at])
    pos = outer.f_locals.get("pos")
    succ = outer.f_locals.get("succ")
    callee = frames[loop_at + 1].f_code if loop_at + 1 < len(frames) else None
    model = ctx.model
    if callee is code_of(within_bounds):
        return Fault(pos, "within_bounds(state)")
    if callee in (code_of(model.successors), code_of(audit_successors)):
        return Fault(pos, "successors(state)")
    if ctx.canon is not None and callee is code_of(ctx.canon):
        return Fault(pos, "canonical(state)", succ)
    if ctx.pack is not None and callee is code_of(ctx.pack):
        return Fault(pos, "pack(state)", succ)
    if ctx.unpack is not None and callee is code_of(ctx.unpack):
        return Fault(pos, "unpack(packed state)")
    for kind, props in (("property", ctx.props.always), ("property", ctx.props.sometimes),
                        ("transition property", ctx.props.transition)):
        for prop in props:
            if callee is not None and callee is code_of(prop.predicate):
                return Fault(pos, f"the predicate of {kind} {prop.name}", succ)
    return Fault(pos, "successors(state)")
