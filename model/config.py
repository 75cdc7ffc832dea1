"""Bounds and protocol generation of the classic replication model, validated up front.

``ClassicConfig`` mirrors the constants of hachikuji/kafka-specification's ``KafkaReplication.tla``
(``Replicas``, ``LogSize``, ``MaxRecords``, ``MaxLeaderEpoch``) plus the choice of the module that
supplies the ``Next`` relation (the protocol *generation*). Every bad option raises ``ValueError``
naming the option and saying how to fix it, before any state is built (as Hypothesis does for its
settings).
"""

from __future__ import annotations

from dataclasses import dataclass

from .generations import GENERATIONS as _GENERATIONS

# Generation name -> the TLA+ module of hachikuji/kafka-specification whose ``Next`` it reproduces.
GENERATIONS: dict[str, str] = {name: g.module for name, g in _GENERATIONS.items()}

# The model tabulates every possible log (see ``isrcheck.model.encoding.logs``); this caps that table.
MAX_LOG_TABLE = 1 << 22


def _check_int(name: str, value: object, low: int, high: int, meaning: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int ({meaning}), got {value!r} of type {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}={value} is out of range: use {low} <= {name} <= {high} ({meaning})")


@dataclass(frozen=True)
class ClassicConfig:
    """Constants of the classic model.

    replicas: number of replicas of the single partition (TLA+ ``Replicas``; ids 1..replicas).
    log_size: capacity of every replica's log (``LogSize``): offsets 0..log_size-1.
    max_records: how many records producers may ever write (``MaxRecords``; ids 0..max_records-1).
    max_leader_epoch: the largest leader epoch the controller may assign (``MaxLeaderEpoch``;
        epochs 0..max_leader_epoch, so at most max_leader_epoch+1 controller ISR updates).
    generation: which protocol generation's ``Next`` relation to use (``isrcheck.model.generations``).
    """

    replicas: int = 2
    log_size: int = 2
    max_records: int = 2
    max_leader_epoch: int = 2
    generation: str = "kip320"

    def __post_init__(self) -> None:
        if not isinstance(self.generation, str) or self.generation not in GENERATIONS:
            names = ", ".join(GENERATIONS)
            raise ValueError(f"generation={self.generation!r} is unknown: choose one of {names}")
        _check_int("replicas", self.replicas, 1, 6, "replicas of the partition; symmetry tables grow as n!")
        _check_int("log_size", self.log_size, 1, 8, "capacity of each replica's log")
        _check_int("max_records", self.max_records, 1, 16, "records producers may write in a run")
        _check_int("max_leader_epoch", self.max_leader_epoch, 0, 16, "largest leader epoch")
        record_kinds = self.max_records * (self.max_leader_epoch + 1)
        if (record_kinds + 1) ** self.log_size > MAX_LOG_TABLE:
            raise ValueError(
                f"log_size={self.log_size} with max_records={self.max_records} and "
                f"max_leader_epoch={self.max_leader_epoch} gives {(record_kinds + 1) ** self.log_size:,} "
                f"possible logs, more than the {MAX_LOG_TABLE:,} the model tabulates: "
                "lower log_size, max_records or max_leader_epoch"
            )

    @property
    def module(self) -> str:
        """The TLA+ module this configuration reproduces."""
        return GENERATIONS[self.generation]

    def describe(self) -> str:
        return (
            f"{self.module} {self.replicas}/{self.log_size}/{self.max_records}/{self.max_leader_epoch} "
            "(Replicas/LogSize/MaxRecords/MaxLeaderEpoch)"
        )
