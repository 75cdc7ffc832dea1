"""Named properties of the classic replication model (``model.classic``).

``build(tables, names)`` returns the selected properties as ``explorer.contract.Property`` values.
The default selection is ``DEFAULT``; ``LeaderInIsrLiteral`` (false in the initial state, see
``properties.isr``) and the transition property are opt-in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from explorer.contract import Property
from model.tables import ModelTables

from . import isr, transitions, typeok, witnesses

CATALOGUE: dict[str, Callable[[ModelTables], Property]] = {
    "TypeOk": typeok.type_ok,
    "WeakIsr": isr.weak_isr,
    "StrongIsr": isr.strong_isr,
    "LeaderInIsr": isr.leader_in_isr,
    "LeaderInIsrLiteral": isr.leader_in_isr_literal,
    "RecordCommitted": witnesses.record_committed,
    "NewLeaderElected": witnesses.new_leader_elected,
    "TruncationHappened": witnesses.truncation_happened,
    "FollowerRejoinedIsr": witnesses.follower_rejoined_isr,
    "OnlyTruncationShortensLogs": transitions.only_truncation_shortens_logs,
}

DEFAULT = (
    "TypeOk",
    "WeakIsr",
    "StrongIsr",
    "LeaderInIsr",
    "RecordCommitted",
    "NewLeaderElected",
    "TruncationHappened",
    "FollowerRejoinedIsr",
)


def parse_selection(text: str) -> tuple[str, ...]:
    """Names from a comma-separated selection: ``default``, ``all``, or property names (which may
    be mixed with ``default``, e.g. ``default,LeaderInIsrLiteral``)."""
    if not isinstance(text, str):
        raise ValueError(f"invariants must be a comma-separated string of property names, got {text!r}")
    chosen: list[str] = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        if name == "default":
            chosen += DEFAULT
        elif name == "all":
            chosen += CATALOGUE
        elif name in CATALOGUE:
            chosen.append(name)
        else:
            raise ValueError(
                f"invariants names an unknown property {name!r}: use 'default', 'all' or a comma-separated "
                f"list of {', '.join(CATALOGUE)}"
            )
    if not chosen:
        raise ValueError("invariants selects no property: use 'default', 'all' or property names")
    return tuple(dict.fromkeys(chosen))


def build(tables: ModelTables, names: tuple[str, ...] = DEFAULT) -> list[Property]:
    """The named properties; those outside ``DEFAULT`` are marked so that a run checks them only
    when asked by name (``isrcheck check classic --invariant LeaderInIsrLiteral``)."""
    return [dataclasses.replace(CATALOGUE[name](tables), default=name in DEFAULT) for name in names]
