"""Traces as JSON in the Informal Trace Format (ITF) that Apalache and Quint read and write.

ITF has no slot for actions; like Quint's model-based-testing output we record the action taken
into each state in its ``#meta`` (as the action's repr, which replay matches). The top-level
``#meta`` names the model and its options, so ``isrcheck replay`` can rebuild the same model.
A model's operator signals (``Model.signals``, optional) go in each state's ``#meta`` too, as
``"signals"``: derived values, so replay and comparisons of states never see them.
Values: ints as JSON numbers (``{"#bigint": ...}`` beyond 2**53), lists as JSON arrays, tuples
as ``{"#tup": ...}``, sets as ``{"#set": ...}``, string-keyed dicts as records, other dicts as
``{"#map": [[k, v], ...]}``.

A lasso (a liveness counterexample) carries ITF's ``loop``: the index of the state the last
state goes back to, so the behaviour is ``states[0..]`` then ``states[loop..]`` forever. The action
that closes the loop has no state to live in; it goes in the top-level ``#meta`` as
``"loop_action"`` (null: the last state stutters, and ``loop`` is its own index).
"""

from __future__ import annotations

import json
import os
from typing import Any

from isrcheck.explorer.contract import signals, state_view
from isrcheck.explorer.outputs import write_atomically
from isrcheck.explorer.result import Trace
from isrcheck.explorer.traces.trace_file import read_itf

__all__ = ["SCHEMA_VERSION", "itf_state", "read_itf", "to_itf", "trace_to_itf", "write_json"]

# The version of the files and summaries isrcheck writes (docs/json.md describes each field). It
# changes when a field changes meaning or goes away; new fields may appear without a change.
SCHEMA_VERSION = 1

_SAFE = 2**53 - 1


def to_itf(value: Any) -> Any:
    if isinstance(value, bool) or isinstance(value, str) or value is None:
        return value
    if isinstance(value, int):
        return value if -_SAFE <= value <= _SAFE else {"#bigint": str(value)}
    if isinstance(value, frozenset | set):
        return {"#set": sorted((to_itf(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))}
    if isinstance(value, tuple):
        return {"#tup": [to_itf(v) for v in value]}
    if isinstance(value, list):
        return [to_itf(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: to_itf(v) for k, v in value.items()}
        return {"#map": [[to_itf(k), to_itf(v)] for k, v in value.items()]}
    return repr(value)


def itf_state(model: Any, state: Any) -> dict[str, Any]:
    return {str(k): to_itf(v) for k, v in state_view(model, state).items()}


def trace_to_itf(model: Any, trace: Trace, meta: dict[str, Any]) -> dict[str, Any]:
    states = []
    for index, step in enumerate(trace.steps):
        entry = {"#meta": {"index": index, "action": None if step.action is None else repr(step.action)}}
        sig = signals(model, step.state)
        if sig is not None:
            # In #meta, not a state variable: replay compares variables and ignores #meta.
            entry["#meta"]["signals"] = to_itf(sig)
        entry.update(itf_state(model, step.state))
        states.append(entry)
    out = {
        "#meta": {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
                  "source": "isrcheck", **meta},
        # In the model's field order (state_view's), never a set's: trace files must be byte-identical
        # under any PYTHONHASHSEED.
        "vars": [k for k in states[0] if k != "#meta"] if states else [],
        "states": states,
    }
    if trace.loop is not None:
        out["loop"] = trace.loop
        out["#meta"]["loop_action"] = None if trace.loop_action is None else repr(trace.loop_action)
    return out


def write_json(path: str | os.PathLike, data: Any) -> None:
    """Write atomically (``isrcheck.explorer.outputs``): a temporary file in the same folder, then rename,
    so an interrupt never leaves a half-written trace where a complete one is expected. The folder
    must exist: it is checked before the run (``check_output_path``), never created."""
    write_atomically(path, json.dumps(data, indent=1) + "\n")
