"""A trace file shown as it was recorded, without its model: what ``isrcheck show`` draws.

A trace file names a model (a registered name or a path to a .py file); importing that path would
run whatever code sits there, and a trace attached to a bug report is not a reason to run code.
So ``show`` renders the file alone: each state's fields as recorded (decoded from ITF), the action
text as recorded, the operator signals recorded in each state's ``#meta``. ``RecordedModel`` is
the stand-in the text and HTML renderers are handed: it answers ``state_view`` and ``signals``
from the file, and ``field_docs`` from the registered model the file names (never a model file),
and nothing else (no successors, no properties, no picture), so no renderer can reach a trace-named
model file's code through it. ``isrcheck replay`` is the command that re-executes a trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.result import Step, Trace
from isrcheck.explorer.traces.trace_file import decode_value, printable


@dataclass(frozen=True)
class RecordedAction:
    """An action as the file spells it; its repr is that text, as a model action's repr would be."""

    text: str

    def __repr__(self) -> str:
        return self.text


class RecordedModel:
    """The states of one trace file; a state is its index in the file."""

    def __init__(self, data: dict[str, Any]) -> None:
        states = data["states"]
        self._views = [{printable(k): decode_value(v, f"states[{i}].{printable(k)}") for k, v in entry.items()
                        if k != "#meta"}
                       for i, entry in enumerate(states)]
        self._signals = [entry["#meta"].get("signals") for entry in states]
        meta = data["#meta"]
        self._model_name, self._options = meta.get("model"), meta.get("options") or {}

    def state_view(self, state: int) -> dict[str, Any]:
        return self._views[state]

    def signals(self, state: int) -> dict[str, Any]:
        sig = self._signals[state]
        return {} if sig is None else decode_value(sig, f"states[{state}].#meta.signals")

    def field_docs(self) -> dict[str, str]:
        """What each field means (``--explain``, the page's descriptions): from the registered model
        the file names, built with the file's options. That is installed code, the same as any
        registered model's; a model *file* the trace names is never imported, so its fields go
        without descriptions."""
        from isrcheck.explorer.contract import field_docs
        from isrcheck.explorer.errors import UserError
        from isrcheck.explorer.registry import build_model, is_file_spec

        if not isinstance(self._model_name, str) or is_file_spec(self._model_name):
            return {}
        try:
            return field_docs(build_model(self._model_name, dict(self._options)))
        except (UserError, TypeError, ValueError):  # a name or options this installation does not know
            return {}


def recorded_trace(data: dict[str, Any]) -> tuple[RecordedModel, Trace]:
    """The file's trace and the stand-in model that shows it (``data`` from ``read_itf``)."""
    model = RecordedModel(data)
    actions = [entry["#meta"]["action"] for entry in data["states"]]
    steps = tuple(Step(None if text is None else RecordedAction(printable(text)), i) for i, text in enumerate(actions))
    loop = data.get("loop")
    loop_text = data["#meta"].get("loop_action")
    loop_action = None if loop is None or loop_text is None else RecordedAction(printable(loop_text))
    return model, Trace(steps, loop=loop, loop_action=loop_action)
