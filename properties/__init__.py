"""Named properties of the classic replication model (``model.classic``).

``build(tables, names)`` returns the selected properties as ``explorer.contract.Property`` values.
The default selection is ``DEFAULT``; ``TypeOk``, ``LeaderInIsrLiteral`` (false in the initial state,
see ``properties.isr``) and the transition property are opt-in: ``--invariant TypeOk``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from explorer.contract import Property
from model.tables import ModelTables

from . import consumers, durability, isr, liveness, transitions, witnesses

CATALOGUE: dict[str, Callable[[ModelTables], Property]] = {
    "TypeOk": durability.type_ok,  # the classic TypeOk, extended when the model has durability fields
    "WeakIsr": isr.weak_isr,
    "StrongIsr": isr.strong_isr,
    "LeaderInIsr": isr.leader_in_isr,
    "LeaderInIsrLiteral": isr.leader_in_isr_literal,
    "RecordCommitted": witnesses.record_committed,
    "NewLeaderElected": witnesses.new_leader_elected,
    "TruncationHappened": witnesses.truncation_happened,
    "FollowerRejoinedIsr": witnesses.follower_rejoined_isr,
    "OnlyTruncationShortensLogs": transitions.only_truncation_shortens_logs,
    "LogMatching": durability.log_matching,
    # Liveness (leads-to under the model's fairness, model.fairness): opt-in, never in DEFAULT.
    "LeaderEventuallyElected": liveness.leader_eventually_elected,
    "EventuallyOnline": liveness.eventually_online,
    "FollowerEventuallyInIsr": liveness.follower_eventually_in_isr,
}

# Properties that read the durability model's fields (``model.durability``): selectable by name
# when the model has the field named here, and part of "all" then.
EXTENSION_CATALOGUE: dict[str, Callable[[ModelTables], Property]] = {
    "AckedRecordNotLost": durability.acked_record_not_lost,
    "RecordAcknowledged": durability.record_acknowledged,
    "BrokerStoppedAndBack": durability.broker_stopped_and_back,
    "AckedRecordSurvives": consumers.acked_record_survives,
    "ConsistentRead": consumers.consistent_read,
    "ReadBelowHighWatermark": consumers.read_below_high_watermark,
    "LeaderHighWatermarkMonotone": consumers.leader_high_watermark_monotone,
    "RecordConsumed": consumers.record_consumed,
    "FollowerCanServe": consumers.follower_can_serve,
    "AckedWriteEventuallyAnswered": liveness.acked_write_eventually_answered,
}
NEEDS_EXTENSION = {
    "AckedRecordNotLost": "acked", "RecordAcknowledged": "acked", "BrokerStoppedAndBack": "dead",
    "AckedRecordSurvives": "acked", "ConsistentRead": "served", "ReadBelowHighWatermark": "served",
    "LeaderHighWatermarkMonotone": "served", "RecordConsumed": "served", "FollowerCanServe": "served",
    "AckedWriteEventuallyAnswered": "acked",
}
# The consumer promises (K12) a model with consumers checks by default; LeaderHighWatermarkMonotone
# is opt-in (a transition property on every step).
CONSUMER_DEFAULTS = ("ConsistentRead", "ReadBelowHighWatermark", "RecordConsumed")

# TypeOk is opt-in: it re-checks the encoding that the model itself builds (tests run it on every
# generation), and at a third of a run's time it is the most expensive property by far.
DEFAULT = (
    "WeakIsr",
    "StrongIsr",
    "LeaderInIsr",
    "RecordCommitted",
    "NewLeaderElected",
    "TruncationHappened",
    "FollowerRejoinedIsr",
)


def _available(name: str, tables: ModelTables | None) -> bool:
    field = NEEDS_EXTENSION.get(name)
    if field is None:
        return True
    ext = getattr(tables, "ext", None)
    return ext is not None and getattr(ext, field) >= 0


def defaults(tables: ModelTables | None = None) -> tuple[str, ...]:
    """``DEFAULT``, plus the durability promises the model's options make checkable (acks 1/all:
    ``AckedRecordNotLost`` and its witness; stops: ``BrokerStoppedAndBack``)."""
    extra = ("AckedRecordNotLost", "RecordAcknowledged", "BrokerStoppedAndBack")
    ext = getattr(tables, "ext", None)
    if ext is None:
        return DEFAULT
    acks = getattr(getattr(tables, "options", None), "acks", "none")
    chosen = [n for n in extra if _available(n, tables) and (n == "BrokerStoppedAndBack" or acks in ("1", "all"))]
    chosen += [n for n in CONSUMER_DEFAULTS if _available(n, tables)]
    consumers_opts = getattr(tables, "consumers", None)
    if consumers_opts is not None and consumers_opts.consumer_reads == "any":
        chosen.append("FollowerCanServe")
    return DEFAULT + tuple(chosen)


def parse_selection(text: str, tables: ModelTables | None = None) -> tuple[str, ...]:
    """Names from a comma-separated selection: ``default``, ``all``, or property names (which may
    be mixed with ``default``, e.g. ``default,LeaderInIsrLiteral``). ``tables``, when given, is the
    model's: "default" and "all" then include the durability properties its options support."""
    if not isinstance(text, str):
        raise ValueError(f"invariants must be a comma-separated string of property names, got {text!r}")
    chosen: list[str] = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        if name == "default":
            chosen += defaults(tables)
        elif name == "all":
            chosen += CATALOGUE
            chosen += [n for n in EXTENSION_CATALOGUE if _available(n, tables)]
        elif name in CATALOGUE or name in EXTENSION_CATALOGUE:
            chosen.append(name)  # an extension property the model lacks fields for is refused by build()
        else:
            raise ValueError(
                f"invariants names an unknown property {name!r}: use 'default', 'all' or a comma-separated "
                f"list of {', '.join([*CATALOGUE, *EXTENSION_CATALOGUE])}"
            )
    if not chosen:
        raise ValueError("invariants selects no property: use 'default', 'all' or property names")
    return tuple(dict.fromkeys(chosen))


def build(tables: ModelTables, names: tuple[str, ...] = DEFAULT) -> list[Property]:
    """The named properties; those outside ``DEFAULT`` are marked so that a run checks them only
    when asked by name (``isrcheck check classic --invariant LeaderInIsrLiteral``)."""
    default = defaults(tables)
    return [
        dataclasses.replace({**CATALOGUE, **EXTENSION_CATALOGUE}[name](tables), default=name in default)
        for name in names
    ]
