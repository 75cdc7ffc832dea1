"""The ONE place the symbolic encoding reaches into the explicit model's internals.

Everything model/symbolic needs from the flat state tuple (``isrcheck.model.encoding.state``), the
log codes (``isrcheck.model.encoding.logs``), the configuration (``isrcheck.model.config``) and the
classic model class (``isrcheck.model.replication.ReplicationModel``) is re-exported here, so a move
of those modules is a one-file fix. What is used: the field offsets of the flat tuple, ``Layout``
(block offsets, request codes), ``LogTables`` (record ids and epochs of a log code, and encoding a
record sequence back into a code), ``ClassicConfig`` and ``ReplicationModel`` (to build an explicit
model large enough to show a state found without bounds).
"""

from __future__ import annotations

from typing import Any

from isrcheck.model.config import ClassicConfig
from isrcheck.model.encoding.logs import LogTables
from isrcheck.model.encoding.state import (
    EPOCH,
    FIELDS_PER_REPLICA,
    HW,
    ISR,
    LEADER,
    LOG,
    NEXT_RECORD_ID,
    Q_ISR,
    Q_LEADER,
    REQUESTS,
    Layout,
)

__all__ = [
    "EPOCH", "FIELDS_PER_REPLICA", "HW", "ISR", "LEADER", "LOG", "NEXT_RECORD_ID", "Q_ISR", "Q_LEADER",
    "REQUESTS", "ClassicConfig", "Layout", "LogTables", "classic_model", "model_like", "is_classic", "config_of",
    "layout_of", "logs_of", "fields_of", "durability_of", "is_replication", "kraft_generation",
    "generation_of", "truncation_of", "consumers_of", "az_of",
]


def is_classic(model: Any) -> bool:
    """True for the classic model (every durability and consumer option off): the only one encoded."""
    from isrcheck.model.replication import ReplicationModel

    return (isinstance(model, ReplicationModel) and model.options.is_classic and model.consumers.is_off
            and len(model.init_states()[0]) == model.layout.length)


def is_replication(model: Any) -> bool:
    """The replication model (its durability options may be on, consumer reads, zones and their
    failures, and truncation on fetch: it adds no field, only a derived generation,
    ``Generation.on_fetch``)."""
    from dataclasses import replace

    from isrcheck.model.replication import ReplicationModel

    if not isinstance(model, ReplicationModel):
        return False
    return replace(model.consumers, truncation="on-become-follower", azs=0, placement="rack-aware",
                   max_az_failures=0, consumer_reads="off").is_off


def consumers_of(model: Any) -> Any:
    """The ``ConsumerOptions`` (consumer reads, truncation, zones) of the model."""
    return model.consumers


def az_of(model: Any) -> tuple[int, ...]:
    """Each replica's availability zone (empty without ``--azs``)."""
    return tuple(model.tables.az_of or ())


def truncation_of(model: Any) -> str:
    """Where followers truncate (``--truncation``): on becoming follower, or on a fetch."""
    return model.consumers.truncation


def kraft_generation(model: Any) -> str | None:
    """The generation of a KRaft-family model (``isrcheck.model.kraft``), else ``None``."""
    from isrcheck.model.kraft.model import KraftModel

    return model.generation if isinstance(model, KraftModel) else None


def generation_of(model: Any) -> Any:
    """The model's ``isrcheck.model.generations.Generation``, as its options derived it (the steps of its
    ``Next`` and its rules: the one description both the explicit and the symbolic steps read)."""
    return model.generation


def durability_of(model: Any) -> Any:
    """The ``DurabilityOptions`` (acks, stops, unclean election, ...) of the model."""
    return model.options


def fields_of(model: Any) -> Any:
    """Where the option fields sit in the flat state tuple (``isrcheck.model.encoding.fields.Fields``)."""
    return model.fields


def classic_model(config: ClassicConfig, invariants: str) -> Any:
    """The explicit classic model of ``config`` (every option off)."""
    from isrcheck.model.replication import ReplicationModel

    return ReplicationModel(config, None, None, invariants)


def model_like(model: Any, config: ClassicConfig) -> Any:
    """The explicit model of ``config`` with ``model``'s options (durability, consumers, zones)."""
    from isrcheck.model.replication import ReplicationModel

    return ReplicationModel(config, model.options, model.consumers, model.invariants)


def config_of(model: Any) -> ClassicConfig:
    return model.config


def layout_of(model: Any) -> Layout:
    return model.tables.layout


def logs_of(model: Any) -> LogTables:
    return model.tables.logs
