"""What the symbolic engines hand back, the encoding error, and choosing properties by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from isrcheck.explorer.contract import Kind
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.result import Violation
from isrcheck.explorer.selection import hint_text


class EncodingError(Exception):
    """The symbolic model disagrees with its explicit model (exit status 4): a decoded trace that
    does not replay, a state that does not decode, a property that holds where the solver says it
    fails."""


@dataclass
class SymbolicResult:
    """``verdict``: for bmc "violation", "no violation" (up to ``depth`` states), "unknown" or
    "interrupted"; for prove "proved", "counterexample to induction" (not a violation: its first
    state may be unreachable), "violation" (a target false in the base case) or "unknown".
    ``reason`` says why an answer is unknown (for prove's "violation", where the target fails); ``cti``
    is a counterexample to induction (a two-state trace and the conjunct that broke);
    ``lemmas`` the lemmas used or discovered."""

    engine: str
    verdict: str
    properties: list[str]
    depth: int = 0
    violations: list[Violation] = field(default_factory=list)
    elapsed: float = 0.0
    reason: str = ""
    cti: Violation | None = None
    lemmas: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


def select_symbolic(sym: Any, names: Sequence[str] | None) -> tuple[list[str], list[Callable]]:
    """The symbolic properties named (default: those of the explicit model's default invariants
    that the symbolic model encodes)."""
    encoded = sym.properties()
    explicit = {p.name: p for p in sym.explicit.properties() if p.kind is Kind.ALWAYS}
    if names:
        unknown = [n for n in names if n not in encoded]
        if unknown:
            raise UserError(
                f"the symbolic encoding has no invariant {', '.join(unknown)}; it encodes "
                f"{', '.join(encoded)} (use --invariant with one of those, or isrcheck check for the others)")
        missing = [n for n in names if n not in explicit]
        if missing:
            raise UserError(f"the model does not check {', '.join(missing)} with these options"
                            f"{hint_text(sym.explicit, missing)}; name another invariant")
        chosen = list(dict.fromkeys(names))
    else:
        chosen = [n for n in encoded if n in explicit and explicit[n].default]
        if not chosen:
            raise UserError(f"none of the model's default invariants is encoded symbolically; name one of "
                            f"{', '.join(encoded)} with --invariant")
    return chosen, [encoded[n] for n in chosen]
