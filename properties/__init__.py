"""Named properties of the replication model (``model``), in one catalogue.

Each entry of ``CATALOGUE`` names a property, the function that builds it from the model's tables
(``isrcheck.properties.tables``), the option field it reads (``needs``: it is available only when the model
has that field, as ``acks`` adds ``acked``) and when a run checks it by default. ``build(tables,
names)`` returns the selected properties as ``isrcheck.explorer.contract.Property`` values. ``TypeOk``,
``LeaderInIsrLiteral`` (false in the initial state, see ``isrcheck.properties.isr``), the transition
properties and the properties a model's options do not promise are opt-in:
``--invariant TypeOk``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from isrcheck.explorer.contract import Property

from . import consumers, durability, isr, liveness, transitions, witnesses
from .tables import Tables


def _always(t: Tables) -> bool:
    return True


def _never(t: Tables) -> bool:
    return False


def _acks_promise(t: Tables) -> bool:
    """acks=1 and acks=all promise that an acknowledged record survives (acks=0 promises nothing)."""
    return t.options.acks in ("1", "all")


def _follower_reads(t: Tables) -> bool:
    return t.consumers.consumer_reads == "any"


@dataclasses.dataclass(frozen=True)
class Entry:
    build: Callable[[Tables], Property]
    needs: str = ""  # the option field (``isrcheck.model.encoding.fields``) it reads; "" = classic fields only
    default: Callable[[Tables], bool] = _never  # checked by default (when available)


# In the order ``all`` and ``default`` list them.
CATALOGUE: dict[str, Entry] = {
    "TypeOk": Entry(durability.type_ok),  # the classic TypeOk, extended with the model's option fields
    "WeakIsr": Entry(isr.weak_isr, default=_always),
    "StrongIsr": Entry(isr.strong_isr, default=_always),
    "LeaderInIsr": Entry(isr.leader_in_isr, default=_always),
    "LeaderInIsrLiteral": Entry(isr.leader_in_isr_literal),
    "RecordCommitted": Entry(witnesses.record_committed, default=_always),
    "NewLeaderElected": Entry(witnesses.new_leader_elected, default=_always),
    "TruncationHappened": Entry(witnesses.truncation_happened, default=_always),
    "FollowerRejoinedIsr": Entry(witnesses.follower_rejoined_isr, default=_always),
    "OnlyTruncationShortensLogs": Entry(transitions.only_truncation_shortens_logs),
    "LogMatching": Entry(durability.log_matching),
    "AckedRecordNotLost": Entry(durability.acked_record_not_lost, "acked", _acks_promise),
    "RecordAcknowledged": Entry(durability.record_acknowledged, "acked", _acks_promise),
    "BrokerStoppedAndBack": Entry(durability.broker_stopped_and_back, "dead", _always),
    "AckedRecordSurvives": Entry(consumers.acked_record_survives, "acked"),
    "ConsistentRead": Entry(consumers.consistent_read, "served", _always),
    "ReadBelowHighWatermark": Entry(consumers.read_below_high_watermark, "served", _always),
    # A transition property on every step: opt-in.
    "LeaderHighWatermarkMonotone": Entry(consumers.leader_high_watermark_monotone, "served"),
    "RecordConsumed": Entry(consumers.record_consumed, "served", _always),
    "FollowerCanServe": Entry(consumers.follower_can_serve, "served", _follower_reads),
    # Liveness (leads-to under the model's fairness, model/fairness.py): opt-in.
    "LeaderEventuallyElected": Entry(liveness.leader_eventually_elected),
    "EventuallyOnline": Entry(liveness.eventually_online),
    "FollowerEventuallyInIsr": Entry(liveness.follower_eventually_in_isr),
    "AckedWriteEventuallyAnswered": Entry(liveness.acked_write_eventually_answered, "acked"),
}

# What a run of the classic model (every option off) checks when it names no property. TypeOk is
# opt-in: it re-checks the encoding that the model itself builds (tests run it on every
# generation), and at a third of a run's time it is the most expensive property by far.
DEFAULT = tuple(name for name, e in CATALOGUE.items() if not e.needs and e.default is _always)


def _available(name: str, tables: Tables | None) -> bool:
    field = CATALOGUE[name].needs
    return not field or (tables is not None and getattr(tables.fields, field) >= 0)


def defaults(tables: Tables | None = None) -> tuple[str, ...]:
    """``DEFAULT``, plus the promises the model's options make checkable (acks 1/all:
    ``AckedRecordNotLost`` and its witness; stops: ``BrokerStoppedAndBack``; consumers: K12)."""
    if tables is None:
        return DEFAULT
    return tuple(name for name, e in CATALOGUE.items() if _available(name, tables) and e.default(tables))


def parse_selection(text: str, tables: Tables | None = None) -> tuple[str, ...]:
    """Names from a comma-separated selection: ``default``, ``all``, or property names (which may
    be mixed with ``default``, e.g. ``default,LeaderInIsrLiteral``). ``tables``, when given, is the
    model's: "default" and "all" then include the properties its options make available."""
    if not isinstance(text, str):
        raise ValueError(f"property_set must be a comma-separated string of property names, got {text!r}")
    chosen: list[str] = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        if name == "default":
            chosen += defaults(tables)
        elif name == "all":
            chosen += [n for n in CATALOGUE if _available(n, tables)]
        elif name in CATALOGUE:
            chosen.append(name)  # a property the model lacks fields for is refused by build()
        else:
            raise ValueError(
                f"property_set names an unknown property {name!r}: use 'default', 'all' or a comma-separated "
                f"list of {', '.join(CATALOGUE)}"
            )
    if not chosen:
        raise ValueError("property_set selects no property: use 'default', 'all' or property names")
    return tuple(dict.fromkeys(chosen))


def build(tables: Tables, names: tuple[str, ...] = DEFAULT) -> list[Property]:
    """The named properties; those outside the model's defaults are marked so that a run checks
    them only when asked by name (``isrcheck check classic --invariant LeaderInIsrLiteral``)."""
    default = defaults(tables)
    return [dataclasses.replace(CATALOGUE[name].build(tables), default=name in default) for name in names]
