"""The ONE place the symbolic encoding reaches into the explicit model's internals.

Everything model/symbolic needs from the flat state tuple (``model.state``), the log codes
(``model.logs``), the configuration and the classic model class is re-exported here, so a move of
those modules is a one-file fix. What is used: the field offsets of the flat tuple, ``Layout``
(block offsets, request codes), ``LogTables`` (record ids and epochs of a log code, and encoding a
record sequence back into a code), ``ClassicConfig`` and ``ClassicModel`` (to build an explicit
model large enough to show a state found without bounds).
"""

from __future__ import annotations

from typing import Any

from model.classic import ClassicModel
from model.config import ClassicConfig
from model.logs import LogTables
from model.state import (
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
    "REQUESTS", "ClassicConfig", "ClassicModel", "Layout", "LogTables", "is_classic", "config_of",
    "layout_of", "logs_of",
]


def is_classic(model: Any) -> bool:
    """True for the classic model (no durability or consumer extension): the only one encoded."""
    return type(model) is ClassicModel


def config_of(model: Any) -> ClassicConfig:
    return model.config


def layout_of(model: Any) -> Layout:
    return model.tables.layout


def logs_of(model: Any) -> LogTables:
    return model.tables.logs
