"""Named sets of a symbolic model's lemmas (``prove --lemma-set NAME``).

A proof of a real configuration needs dozens of lemmas (the KRaft family's 57 at K11-fixed's
bounds); naming each with ``--lemma`` is error-prone. A model's lemma module keeps its proved sets
as module-level tuples of lemma names (``STRUCTURAL_LEMMAS``, ``ISR_PROOF_LEMMAS_3``,
``LEADER_COMPLETENESS_CANDIDATES``); ``named_sets`` reads them from the module, so a set added
there is offered without being listed again anywhere. A set's name is the tuple's, lower case,
without ``_LEMMAS``, with hyphens: ``structural``, ``isr-proof-3``, ``leader-completeness-candidates``.
A symbolic model offers them with ``lemma_sets() -> {name: names}`` (optional), and may say why a
set names lemmas it does not offer with ``lemma_hint(names) -> str | None`` (optional).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from isrcheck.explorer.errors import UserError

_SET = re.compile(r"^([A-Z][A-Z0-9_]*?)(?:_LEMMAS(_[0-9]+)?|(_CANDIDATES))$")


def named_sets(namespace: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The lemma sets among a module's globals (``vars(module)``): tuples of strings whose name ends
    in ``_LEMMAS``, ``_LEMMAS_<n>`` or ``_CANDIDATES``, in the module's order."""
    out: dict[str, tuple[str, ...]] = {}
    for key, value in namespace.items():
        match = _SET.match(key)
        if match is None or not isinstance(value, tuple) or not all(isinstance(x, str) for x in value):
            continue
        stem, number, candidates = match.groups()
        out[(stem + (number or "") + (candidates or "")).lower().replace("_", "-")] = value
    return out


def sets_of(sym: Any) -> dict[str, tuple[str, ...]]:
    """The symbolic model's named lemma sets (none when it offers none)."""
    fn = getattr(sym, "lemma_sets", None)
    return dict(fn()) if callable(fn) else {}


def lemmas_of_sets(sym: Any, names: Sequence[str], builtin: Mapping[str, Callable]) -> dict[str, Callable]:
    """The lemmas of the sets ``names``, in the sets' order, each once; an unknown set refused with
    the known ones, and a set naming a lemma this configuration does not offer refused with it."""
    sets = sets_of(sym)
    out: dict[str, Callable] = {}
    for name in names:
        if name not in sets:
            known = (f"its sets are {', '.join(sets)}" if sets
                     else "it has none (name lemmas with --lemma, or yours with --lemmas FILE.py)")
            raise UserError(f"the model has no lemma set {name!r}; {known} (--list-lemmas shows them)")
        missing = [x for x in sets[name] if x not in builtin]
        if missing:
            hint = getattr(sym, "lemma_hint", None)  # optional: the model says why (e.g. an encoding's lemmas)
            why = hint(missing) if callable(hint) else None
            raise UserError(f"lemma set {name!r} names {', '.join(missing)}, which this configuration does not "
                            f"offer{f' ({why})' if why else ''} (--list-lemmas shows its lemmas); name the others "
                            "with --lemma")
        for lemma in sets[name]:
            out.setdefault(lemma, builtin[lemma])
    return out
