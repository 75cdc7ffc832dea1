"""A classic state read as a Kafka engineer says it: ``s.replica(1).hw``, ``s.controller.leader``.

What is modelled: nothing new. This is a read-only, typed view of the packed state tuple
(``isrcheck.model.encoding.state``, ``isrcheck.model.encoding.fields``) for users' own properties
(docs/properties-own.md). Names are the trace's names in snake case, values are the trace's values:
replica ids 1..n, ``None`` for no leader, -1 for the spec's ``Nil`` leader epoch, ISRs as frozensets
of ids, records as ``Record(id, epoch)``. Each attribute's docstring names the trace key it shows
(``replicaState.1.hw``); ``s["replicaState.1.hw"]`` reads a state by that key too.

Fields that only some options add (stopped brokers, acknowledged records, served reads, flushed
offsets, racks) raise ``FieldNotInModel`` when the model was built without them, naming the option
that adds the field: a property that reads them is bad input for such a model (exit 2), not a crash.

Abstracted away: reads are computed when asked (nothing is precomputed per state), so a property
pays only for what it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from isrcheck.explorer.errors import UserError

from .encoding.state import EPOCH, HW, ISR, LEADER, NEXT_RECORD_ID, Q_ISR, Q_LEADER, REQUESTS

# Option field -> (trace key, the options that add it): what FieldNotInModel says.
# The read attributes of each option field (what a property's code names when it reads it).
ATTRIBUTES = {"dead": ("stopped_brokers", "stopped"), "crashes": ("stops",), "flushed": ("flushed_offset",),
              "acked": ("acked_records",), "served": ("served",), "racks": ("rack",), "az_failed": ("az_failures",)}
ADDED_BY = {
    "dead": ("stoppedBrokers", "--max-crashes N (make_model(max_crashes=N)) or --max-az-failures N"),
    "crashes": ("stops", "--max-crashes N (make_model(max_crashes=N)) or --max-az-failures N"),
    "flushed": ("flushedOffset", "--stops lossy/crash+lossy/all with --max-crashes N, or --max-az-failures N"),
    "acked": ("ackedRecords", "--acks 0, 1 or all (make_model(acks='all'))"),
    "served": ("served", "--consumer-reads leader or any (make_model(consumer_reads='leader'))"),
    "racks": ("racks", "--azs N (make_model(azs=N))"),
    "az_failed": ("azFailures", "--max-az-failures N with --azs N"),
}


class FieldNotInModel(UserError, AttributeError):
    """A property read a field the model's options do not add. A ``UserError`` (exit 2): the fix
    is an option, and the message names it. Also an ``AttributeError``, so ``hasattr`` and
    ``getattr(s, name, default)`` treat the field as absent."""


def _present(tables: Any, field: str) -> bool:
    return getattr(tables.fields, field) >= 0 or (field == "racks" and bool(tables.az_of))


def _missing(field: str, attribute: str, verb: str = "it reads ") -> str:
    key, option = ADDED_BY[field]
    return (f"{verb}{attribute} (trace: {key}), a field this model does not have; it is added by {option}. "
            "Build the model with that option, or drop the property")


def _require(tables: Any, field: str, attribute: str) -> int:
    if not _present(tables, field):
        raise FieldNotInModel(_missing(field, attribute, "it read "))
    return getattr(tables.fields, field)


@dataclass(frozen=True, slots=True)
class Record:
    """A record in a log: its ``id`` (the producer's record id, ``replicaLog.N[k].id``) and the
    leader ``epoch`` it was written in (``replicaLog.N[k].epoch``)."""

    id: int
    epoch: int


@dataclass(frozen=True, slots=True)
class Controller:
    """The controller's view of the partition (ZooKeeper's ``quorumState``): ``leader`` (None: none),
    ``leader_epoch`` (-1 before the first election) and ``isr`` (broker ids)."""

    leader: int | None
    leader_epoch: int
    isr: frozenset[int]


@dataclass(frozen=True, slots=True)
class Request:
    """A LeaderAndIsr request the controller sent (``leaderAndIsrRequests[k]``)."""

    leader_epoch: int
    leader: int | None
    isr: frozenset[int]


class Replica:
    """One broker's replica of the partition (``replicaLog.N``, ``replicaState.N``; N = ``id``)."""

    __slots__ = ("_t", "_s", "_b", "id")

    def __init__(self, tables: Any, state: tuple, replica_id: int) -> None:
        self._t, self._s, self.id = tables, state, replica_id
        self._b = tables.layout.base[replica_id - 1]

    def __repr__(self) -> str:
        return (f"Replica({self.id}, log={list(self.log)}, hw={self.hw}, leader_epoch={self.leader_epoch}, "
                f"leader={self.leader}, isr={sorted(self.isr)})")

    @property
    def log(self) -> tuple[Record, ...]:
        """The records from offset 0 (``replicaLog.N``)."""
        logs = self._t.logs
        return tuple(Record(logs.record_id(r), logs.record_epoch(r)) for r in logs.records[self._s[self._b]])

    @property
    def log_end(self) -> int:
        """The log end offset (LEO): the number of records, the offset the next write goes to."""
        return len(self._t.logs.records[self._s[self._b]])

    @property
    def hw(self) -> int:
        """The high watermark (``replicaState.N.hw``): offsets below it are committed as this replica knows."""
        return self._s[self._b + HW]

    @property
    def leader_epoch(self) -> int:
        """The cached leader epoch (``replicaState.N.leaderEpoch``; -1 before any LeaderAndIsr)."""
        return self._s[self._b + EPOCH]

    @property
    def leader(self) -> int | None:
        """The leader this replica believes in (``replicaState.N.leader``; None: none)."""
        v = self._s[self._b + LEADER]
        return None if v < 0 else v + 1

    @property
    def isr(self) -> frozenset[int]:
        """The ISR as this replica cached it (``replicaState.N.isr``)."""
        return frozenset(i + 1 for i in self._t.layout.members[self._s[self._b + ISR]])

    @property
    def presumes_leadership(self) -> bool:
        """It believes it is the leader (its cached leader is itself); a stale leader does too."""
        return self.leader == self.id

    @property
    def stopped(self) -> bool:
        """The broker is stopped (in ``stoppedBrokers``); needs broker stops (``--max-crashes``)."""
        at = _require(self._t, "dead", "replica(N).stopped")
        return bool(self._s[at] >> (self.id - 1) & 1)

    @property
    def flushed_offset(self) -> int:
        """The flushed offset, its recovery point (``flushedOffset.N``); needs lossy stops."""
        at = _require(self._t, "flushed", "replica(N).flushed_offset")
        return self._s[at + self.id - 1]

    @property
    def rack(self) -> str:
        """Its availability zone (``racks.N``, ``az1``...); needs ``--azs``."""
        _require(self._t, "racks", "replica(N).rack")
        return f"az{self._t.az_of[self.id - 1] + 1}"


class ClassicState:
    """A state of the classic (ZooKeeper-era) model, read by name. Built by ``model.read(state)``;
    users' properties receive it instead of the packed tuple (``isrcheck.explorer.extra``)."""

    __slots__ = ("_t", "_s", "__dict__")

    def __init__(self, tables: Any, state: tuple) -> None:
        self._t, self._s = tables, state

    def __repr__(self) -> str:
        return f"ClassicState({self.raw!r})"

    @property
    def raw(self) -> tuple:
        """The packed tuple the model stores (what ``Property`` predicates of the model receive)."""
        return self._s

    def absent_fields(self) -> dict[str, str]:
        """{attribute: why} for the attributes this model's options leave out: what
        ``isrcheck.explorer.extra`` refuses in a property's code before a run starts."""
        return {a: _missing(f, a) for f, attrs in ATTRIBUTES.items() if not _present(self._t, f) for a in attrs}

    @property
    def replica_ids(self) -> tuple[int, ...]:
        """The replica (broker) ids, 1..n."""
        return tuple(range(1, self._t.layout.n + 1))

    def replica(self, replica_id: int) -> Replica:
        """Replica ``replica_id`` (1..n), as the trace's ``replicaState.N`` and ``replicaLog.N``."""
        if not isinstance(replica_id, int) or not 1 <= replica_id <= self._t.layout.n:
            raise UserError(f"replica({replica_id!r}): this model has replicas 1..{self._t.layout.n}")
        return Replica(self._t, self._s, replica_id)

    @cached_property
    def replicas(self) -> tuple[Replica, ...]:
        """Every replica, by id."""
        return tuple(Replica(self._t, self._s, r) for r in self.replica_ids)

    @cached_property
    def controller(self) -> Controller:
        """The controller's ``quorumState``: leader, leader epoch, ISR."""
        lay, s = self._t.layout, self._s
        leader = s[lay.g + Q_LEADER]
        return Controller(None if leader < 0 else leader + 1, len(s[lay.g + REQUESTS]) - 1,
                          frozenset(i + 1 for i in lay.members[s[lay.g + Q_ISR]]))

    @property
    def leader(self) -> Replica | None:
        """The controller's leader's replica (``quorumState.leader``), or None when there is none."""
        leader = self.controller.leader
        return None if leader is None else self.replica(leader)

    @property
    def requests(self) -> tuple[Request, ...]:
        """The LeaderAndIsr requests sent so far (``leaderAndIsrRequests``), by leader epoch."""
        lay = self._t.layout
        return tuple(Request(e, None if leader < 0 else leader + 1, frozenset(i + 1 for i in lay.members[isr]))
                     for e, leader, isr in lay.requests(self._s))

    @property
    def next_record_id(self) -> int:
        """The id the next producer write gets (``nextRecordId``): records written so far."""
        return self._s[self._t.layout.g + NEXT_RECORD_ID]

    @property
    def next_leader_epoch(self) -> int:
        """The epoch of the next election (``nextLeaderEpoch``)."""
        return len(self._s[self._t.layout.g + REQUESTS])

    @property
    def stopped_brokers(self) -> frozenset[int]:
        """The stopped brokers (``stoppedBrokers``); needs ``--max-crashes`` or ``--max-az-failures``."""
        at = _require(self._t, "dead", "stopped_brokers")
        return frozenset(i + 1 for i in self._t.layout.members[self._s[at]])

    @property
    def stops(self) -> int:
        """Broker stops so far (``stops``); needs ``--max-crashes``."""
        return self._s[_require(self._t, "crashes", "stops")]

    @property
    def acked_records(self) -> frozenset[int]:
        """Record ids a producer was told are written (``ackedRecords``); needs ``--acks``."""
        v = self._s[_require(self._t, "acked", "acked_records")]
        return frozenset(r for r in range(v.bit_length()) if v >> r & 1)

    @property
    def served(self) -> dict[int, int | str | None]:
        """Per offset, the record id a consumer was served there (``served``): None for none yet,
        ``"CONFLICT"`` when two consumers got different records; needs ``--consumer-reads``."""
        at = _require(self._t, "served", "served")
        conflict = self._t.fields.served_conflict
        return {off: (None if v == 0 else "CONFLICT" if v == conflict else v - 1)
                for off in range(self._t.config.log_size) for v in (self._s[at + off],)}

    @property
    def az_failures(self) -> int:
        """Availability-zone failures so far (``azFailures``); needs ``--max-az-failures``."""
        return self._s[_require(self._t, "az_failed", "az_failures")]

    @cached_property
    def _flat(self) -> dict[str, Any]:
        from .encoding.view import StateView

        return flatten(StateView(self._t).view(self._s))

    def __getitem__(self, key: str) -> Any:
        """The value the trace prints under ``key`` (``s["replicaState.1.hw"]``, ``s["quorumState.leader"]``)."""
        try:
            return self._flat[key]
        except KeyError:
            raise KeyError(f"{key!r} is not a trace key of this model; keys: {', '.join(self._flat)}") from None


def flatten(view: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested state view as the trace's dotted keys; lists stay values (a log, an ISR)."""
    out: dict[str, Any] = {}
    for k, v in view.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out
