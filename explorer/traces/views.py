"""Turning states into named, JSON-friendly values, and comparing two of them.

Every renderer (text, ITF JSON) and replay goes through here, so what a user reads, what a trace
file holds and what replay compares are one and the same view of a state."""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.contract import state_view


def plain(value: Any) -> Any:
    """A JSON-friendly copy: tuples become lists, frozensets sorted lists, dict keys strings."""
    if isinstance(value, bool | int | str | float) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    return repr(value)


def view(model: Any, state: Any) -> dict[str, Any]:
    """The model's named view of a state, made JSON-friendly."""
    return {str(k): plain(v) for k, v in state_view(model, state).items()}


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested records as dotted paths (``replicaState.2.hw``), so a diff names the field that moved.
    Lists stay whole: a log reads better as one value than as one line per entry."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(path, old, new) for every flattened field that differs, in the model's field order."""
    a, b = flatten(before), flatten(after)
    missing = object()
    out = []
    for path in list(b) + [p for p in a if p not in b]:
        old, new = a.get(path, missing), b.get(path, missing)
        if _emptied_or_filled(path, old, new, a, b, missing):
            continue  # an empty record that gained (or lost) entries: its entries' lines say it
        if old != new:
            out.append((path, None if old is missing else old, None if new is missing else new))
    return out


def _emptied_or_filled(path: str, old: Any, new: Any, a: dict[str, Any], b: dict[str, Any],
                       missing: object) -> bool:
    """Whether ``path`` is an empty record on one side whose entries appear on the other: flatten
    keeps ``{}`` as a leaf, so without this a diff would print ``messages: {} -> -`` beside the
    entries' own lines."""
    inside = path + "."
    if old == {} and new is missing:
        return any(p.startswith(inside) for p in b)
    if new == {} and old is missing:
        return any(p.startswith(inside) for p in a)
    return False


def short(value: Any) -> str:
    """A compact rendering: JSON-like, without quotes around plain words."""
    if isinstance(value, list):
        return "[" + ", ".join(short(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {short(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "-"
    return str(value)
