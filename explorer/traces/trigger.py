"""Where a leads-to lasso's trigger held: the state from which its target never holds again.

A ``P ~> Q`` counterexample is a lasso on which P holds at some state and Q never holds then or
later (the loop repeats forever). The trace is read from that state on, so the text trace and the
HTML page both point at it (``isrcheck.explorer.liveness.checker.violates_on_lasso`` finds it,
as replay does).
"""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.contract import Kind
from isrcheck.explorer.liveness.checker import violates_on_lasso
from isrcheck.explorer.result import Trace


def trigger_index(model: Any, name: str, kind: str, trace: Trace) -> int | None:
    """The 0-based index of the state where leads-to property ``name``'s trigger held with its
    target never holding after; None for any other kind, or when the model no longer names it."""
    if kind != Kind.LEADS_TO.value or trace.loop is None or model is None:
        return None
    prop = next((p for p in model.properties() if p.name == name), None)
    if prop is None or prop.kind is not Kind.LEADS_TO:
        return None
    index = violates_on_lasso(prop, trace)
    return None if index is None else index - 1
