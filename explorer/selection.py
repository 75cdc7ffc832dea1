"""Choosing which of a model's properties a run checks, as a TLC configuration chooses invariants.

Shared by every engine so that a name that does not exist is refused the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.contract import Kind, Property
from isrcheck.explorer.errors import ContractError, UserError


@dataclass(frozen=True)
class Selected:
    always: tuple[Property, ...]
    sometimes: tuple[Property, ...]
    transition: tuple[Property, ...]
    liveness: tuple[Property, ...] = ()  # eventually and leads-to, checked on the state graph

    @property
    def names(self) -> list[str]:
        return [p.name for p in (*self.always, *self.sometimes, *self.transition, *self.liveness)]


def select_properties(model: Any, names: Sequence[str] | None = None) -> Selected:
    """The model's properties named in ``names`` (those marked ``default`` when ``names`` is None)."""
    props = list(model.properties())
    by_name: dict[str, Property] = {}
    for p in props:
        if not isinstance(p, Property):
            raise ContractError(
                f"properties() returned {p!r:.80}, which is not an isrcheck.Property; build properties "
                "with Property.always(name, predicate), Property.sometimes(...) or Property.transition(...)"
            )
        if p.name in by_name:
            raise ContractError(f"two properties are named {p.name!r}; property names must be unique")
        by_name[p.name] = p
    if names:
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise UserError(
                f"unknown property {', '.join(map(repr, unknown))}{hint_text(model, unknown)}; this model has: "
                f"{', '.join(by_name) or '(none)'}"
            )
        chosen = [by_name[n] for n in dict.fromkeys(names)]
    else:
        chosen = [p for p in props if p.default]
    for p in chosen:
        if p.kind is Kind.LEADS_TO and p.target is None:
            raise ContractError(f"leads-to property {p.name!r} has no target; build it with Property.leads_to(...)")
    return Selected(
        always=tuple(p for p in chosen if p.kind is Kind.ALWAYS),
        sometimes=tuple(p for p in chosen if p.kind is Kind.SOMETIMES),
        transition=tuple(p for p in chosen if p.kind is Kind.TRANSITION),
        liveness=tuple(p for p in chosen if p.kind.is_liveness),
    )


def hint_text(model: Any, unknown: list[str]) -> str:
    """The model's own account of what would add each unknown name (its optional ``property_hint``
    hook: "the acks option adds it"), or nothing."""
    hook = getattr(model, "property_hint", None)
    if hook is None:
        return ""
    hints = []
    for name in unknown:
        try:
            hint = hook(name)
        except Exception as exc:  # a broken hint must not hide the refusal itself
            hint = f"(property_hint failed: {exc!r})"
        if hint:
            hints.append(str(hint))
    return f" ({'; '.join(hints)})" if hints else ""


def describe_failure(prop: Property, *args: Any) -> str:
    """The property's own account of why these values fail it, or an empty string."""
    if prop.describe is None:
        return ""
    try:
        return str(prop.describe(*args))
    except Exception as exc:  # a broken describe must not hide the violation itself
        return f"(describe failed: {exc!r})"
