"""A KRaft state read as a Kafka engineer says it: ``s.broker(2).hw``, ``s.controller.isr``, ``.elr``.

What is modelled: nothing new. A read-only, typed view of the KRaft family's state tuple
(``isrcheck.model.kraft.fields``) for users' own properties (docs/properties-own.md). Names are the
trace's keys in snake case and values are the trace's values: broker ids 1..n, ``None`` for no
leader, broker sets as frozensets of ids, records as ``Record(value, epoch)``. Each attribute's
docstring names its trace key (``partitionData.hwm.2``); ``s["partitionData.hwm.2"]`` reads by
that key too, for every field including those without a name here.

Abstracted away: reads are computed when asked, so a property pays only for what it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from isrcheck.explorer.errors import UserError

from .fields import (
    ACKED,
    ALTER_PARTITION,
    BROKER_FIELDS,
    C_UNFENCED,
    EPOCH_START,
    FETCHES,
    GLOBAL_FIELDS,
    HW,
    LOG,
    MD_ISR,
    MD_LEADER,
    MD_LEADER_EPOCH,
    METADATA_LOG,
    NIL,
    ROLE,
    ROLE_NAMES,
    SENT,
    STATUS,
    STATUS_NAMES,
    VALUES,
    shown,
)


@dataclass(frozen=True, slots=True)
class Record:
    """A record in a broker's log (``partitionData.log.N[k]``): its ``value`` (``"A"``...) and the
    leader ``epoch`` it was written in."""

    value: str
    epoch: int


@dataclass(frozen=True, slots=True)
class PartitionRecord:
    """A PartitionChange record of the controller's metadata log (``controller.metadataLog[k]``);
    ``elr`` and ``last_known_elr`` are empty without KIP-966; ``replicas`` is the replica set,
    ``adding`` and ``removing`` a reassignment's (KIP-455; empty when none is in progress)."""

    leader: int | None
    leader_epoch: int
    partition_epoch: int
    isr: frozenset[int]
    elr: frozenset[int]
    last_known_elr: frozenset[int]
    replicas: frozenset[int] = frozenset()
    adding: frozenset[int] = frozenset()
    removing: frozenset[int] = frozenset()


class Broker:
    """One broker: its process state, its replica of the partition and the controller's
    registration of it (every ``*.N`` key of the trace; N = ``id``)."""

    __slots__ = ("_t", "_s", "_b", "id")

    def __init__(self, tables: Any, state: tuple, broker_id: int) -> None:
        self._t, self._s, self.id = tables, state, broker_id
        self._b = tables.layout.base[broker_id - 1]

    def __repr__(self) -> str:
        return f"Broker({self.id}, status={self.status}, role={self.role}, log={list(self.log)}, hw={self.hw})"

    @property
    def status(self) -> str:
        """``RUNNING``, ``OFFLINE_CLEAN``, ``OFFLINE_DIRTY``, ``STARTING``... (``brokerState.status.N``)."""
        return STATUS_NAMES[self._s[self._b + STATUS]]

    @property
    def running(self) -> bool:
        """Its status is ``RUNNING``."""
        return self._s[self._b + STATUS] == 0

    @property
    def role(self) -> str | None:
        """``Leader``, ``Follower`` or None (``partitionStatus.N``)."""
        return ROLE_NAMES[self._s[self._b + ROLE]]

    @property
    def log(self) -> tuple[Record, ...]:
        """Its log of the partition (``partitionData.log.N``)."""
        nv = self._t.config.values
        return tuple(Record(VALUES[r % nv], r // nv) for r in self._s[self._b + LOG])

    @property
    def log_end(self) -> int:
        """Its log end offset: the number of records."""
        return len(self._s[self._b + LOG])

    @property
    def hw(self) -> int:
        """Its high watermark (``partitionData.hwm.N``)."""
        return self._s[self._b + HW]

    @property
    def leader(self) -> int | None:
        """The leader in its partition metadata (``partitionMetadata.leader.N``; None: none)."""
        v = self._s[self._b + MD_LEADER]
        return None if v == NIL else v + 1

    @property
    def leader_epoch(self) -> int:
        """The leader epoch in its partition metadata (``partitionMetadata.leaderEpoch.N``)."""
        return self._s[self._b + MD_LEADER_EPOCH]

    @property
    def isr(self) -> frozenset[int]:
        """The ISR in its partition metadata (``partitionMetadata.isr.N``)."""
        return frozenset(self._t.layout.ids(self._s[self._b + MD_ISR]))

    @property
    def epoch_start(self) -> int:
        """Its leader epoch start offset (``partitionLeso.N``; -1 on a follower)."""
        return self._s[self._b + EPOCH_START]

    @property
    def unfenced(self) -> bool:
        """The controller has it registered and unfenced (``controller.unfenced.N``)."""
        return bool(self._s[self._b + C_UNFENCED])

    @property
    def pending_alter_partition(self) -> dict[str, Any] | None:
        """The AlterPartition this leader has in flight (``pendingAlterPartition.N``: ``phase``,
        proposed ``isr``, ``brokerEpochs``), or None."""
        slot = BROKER_FIELDS[ALTER_PARTITION].show(self._t, self._s, self._b + ALTER_PARTITION)
        return slot if slot["phase"] is not None else None

    @property
    def fetches_in_flight(self) -> list[str]:
        """Fetch requests and responses in flight from this broker (``fetchesInFlight.N``; with
        ``--split-fetch`` only, else empty)."""
        return BROKER_FIELDS[FETCHES].show(self._t, self._s, self._b + FETCHES)

    def __getitem__(self, key: str) -> Any:
        """A field by its trace key without the broker suffix: ``b["partitionLeso"]``."""
        for i, f in enumerate(BROKER_FIELDS):
            if f.view == key:
                return f.show(self._t, self._s, self._b + i)
        raise KeyError(f"{key!r} is not a broker field; fields: {', '.join(f.view for f in BROKER_FIELDS)}")


class KraftState:
    """A state of the KRaft family (``kraft-3.5``, ``kraft-kip966``), read by name. Built by
    ``model.read(state)``; users' properties receive it instead of the tuple."""

    __slots__ = ("_t", "_s", "__dict__")

    def __init__(self, tables: Any, state: tuple) -> None:
        self._t, self._s = tables, state

    def __repr__(self) -> str:
        return f"KraftState({self.raw!r})"

    @property
    def raw(self) -> tuple:
        """The tuple the model stores."""
        return self._s

    @property
    def broker_ids(self) -> tuple[int, ...]:
        """The broker ids, 1..n."""
        return tuple(range(1, self._t.layout.n + 1))

    def broker(self, broker_id: int) -> Broker:
        """Broker ``broker_id`` (1..n)."""
        if not isinstance(broker_id, int) or not 1 <= broker_id <= self._t.layout.n:
            raise UserError(f"broker({broker_id!r}): this model has brokers 1..{self._t.layout.n}")
        return Broker(self._t, self._s, broker_id)

    replica = broker  # the classic family's word, for properties written for both

    @cached_property
    def brokers(self) -> tuple[Broker, ...]:
        """Every broker, by id."""
        return tuple(Broker(self._t, self._s, b) for b in self.broker_ids)

    @property
    def metadata_log(self) -> tuple[PartitionRecord, ...]:
        """The controller's metadata log (``controller.metadataLog``), oldest first."""
        ids = self._t.layout.ids
        return tuple(PartitionRecord(None if r[0] == NIL else r[0] + 1, r[1], r[2],
                                     *(frozenset(ids(m)) for m in r[3:]))
                     for r in self._s[self._t.layout.g + METADATA_LOG])

    @property
    def controller(self) -> PartitionRecord:
        """The controller's current view of the partition: the last record of its metadata log
        (``.leader``, ``.leader_epoch``, ``.isr``, ``.elr``)."""
        return self.metadata_log[-1]

    @property
    def leader(self) -> Broker | None:
        """The controller's leader's broker, or None."""
        leader = self.controller.leader
        return None if leader is None else self.broker(leader)

    @property
    def fenced_brokers(self) -> frozenset[int]:
        """Brokers the controller holds fenced (not ``controller.unfenced``)."""
        return frozenset(b.id for b in self.brokers if not b.unfenced)

    @property
    def stopped_brokers(self) -> frozenset[int]:
        """Brokers not ``RUNNING``."""
        return frozenset(b.id for b in self.brokers if not b.running)

    def _values(self, index: int) -> frozenset[str]:
        v = self._s[self._t.layout.g + index]
        return frozenset(VALUES[i] for i in range(self._t.config.values) if v >> i & 1)

    @property
    def acked_values(self) -> frozenset[str]:
        """Values a producer was positively acknowledged (``invPosAcked``)."""
        return self._values(ACKED)

    @property
    def sent_values(self) -> frozenset[str]:
        """Values written by producers (``invSent``)."""
        return self._values(SENT)

    @cached_property
    def _flat(self) -> dict[str, Any]:
        t, s, lay = self._t, self._s, self._t.layout
        out: dict[str, Any] = {}
        for b in lay.brokers:
            for i, f in enumerate(BROKER_FIELDS):
                out[f"{f.view}.{b + 1}"] = f.show(t, s, lay.base[b] + i)
        for i, f in enumerate(GLOBAL_FIELDS):
            if shown(f, t.config):
                out[f.view] = f.show(t, s, lay.g + i)
        return out

    def __getitem__(self, key: str) -> Any:
        """The value the trace prints under ``key`` (``s["partitionData.hwm.2"]``)."""
        try:
            return self._flat[key]
        except KeyError:
            raise KeyError(f"{key!r} is not a trace key of this model; keys: {', '.join(self._flat)}") from None
