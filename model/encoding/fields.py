"""The state layout as one table: every field of a state tuple, classic and optional, in order.

A state is one flat tuple (``isrcheck.model.encoding.state``): the five fields of each replica's block
(replica-major), the four global fields of ``KafkaReplication.tla``, then the fields the model's
options add, each present only when its option is on, appended in table order. Each row says
what everything else needs to know about a field, so that adding a field is adding a row:

- ``initial``: its value in ``Init`` (``INITIAL_ALL`` is the all-replicas mask);
- ``symmetry``: how a relabelling of replicas maps it (``isrcheck.model.encoding.symmetry``): a plain
  ``VALUE``, a ``REPLICA`` index (-1 for none), a ``REPLICA_SET`` bit mask, the ``REQUESTS``
  tuple, or ``PER_REPLICA`` slots that move with their replica;
- ``view``: its key in ``state_view`` and ITF (the classic fields are shown as the spec's nested
  variables by ``isrcheck.model.encoding.view``; the others by the row's ``show``);
- ``high``: ``TypeOk``'s domain ``0..high`` for the option fields (``isrcheck.properties.durability``);
- ``signal``: the operator signal it feeds (``isrcheck.model.encoding.signals``), if any;
- ``present``: for option fields, which options add it;
- ``doc``: one line a reader of a trace understands without the code (``field_docs`` shows it on
  the HTML page and under ``--explain`` in text traces).

A zero-width row (``racks``) is shown in the view but is not in the tuple: the configuration
fixes it for a run.

Abstracted away: nothing: this module only describes the encoding the steps build.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Symmetry roles.
VALUE, REPLICA, REPLICA_SET, REQUESTS, PER_REPLICA = "value", "replica", "replica-set", "requests", "per-replica"
# Widths.
ONE, REPLICAS, OFFSETS, NONE = "one", "replicas", "offsets", "none"
INITIAL_ALL = "all replicas"


@dataclass(frozen=True)
class Field:
    name: str
    view: str
    initial: int | tuple | str = 0
    symmetry: str = VALUE
    width: str = ONE
    high: Callable[[Any], int] | None = None  # TypeOk upper bound, from the model's tables
    signal: str = ""
    present: Callable[[Any, Any], bool] | None = None  # (durability options, consumer options) -> bool
    show: Callable[[Any, tuple, int], Any] | None = None  # (tables, state, position) -> view value
    doc: str = ""


def _members(t: Any, mask: int) -> list[int]:
    return [i + 1 for i in t.layout.members[mask]]


def _az(c: Any) -> bool:
    return c.max_az_failures > 0


def served_conflict(max_records: int) -> int:
    """The ``served`` ghost's mark for an offset two consumers were served different records at:
    one past the largest value a served record takes (record id + 1, ids below ``max_records``).
    The one definition of it: the step (``isrcheck.model.steps.consumers``, as ``x.served_conflict``),
    the view, ``read``, the properties (``tables.fields.served_conflict``) and the symbolic encoding
    read it here."""
    return max_records + 1


def _served(t: Any, s: tuple, i: int) -> dict[str, Any]:
    conflict = t.fields.served_conflict
    return {str(off): (None if v == 0 else "CONFLICT" if v == conflict else v - 1)
            for off in range(t.config.log_size) for v in (s[i + off],)}


# One replica's block (``replicaLog[r]`` and ``replicaState[r]``), repeated for every replica.
REPLICA_FIELDS = (
    Field("log", "replicaLog", 0, VALUE,
          doc="the replica's log: each record's id and the leader epoch it was written in, offset 0 first"),
    Field("hw", "replicaState.hw", 0, VALUE,
          doc="the replica's high watermark: records below this offset are committed as the replica knows it"),
    Field("epoch", "replicaState.leaderEpoch", -1, VALUE,
          doc="the leader epoch the replica last learned (from a LeaderAndIsr request); -1: none yet"),
    Field("leader", "replicaState.leader", -1, REPLICA,
          doc="the leader the replica last learned; - (None): none known"),
    Field("isr", "replicaState.isr", 0, REPLICA_SET,
          doc="the ISR as this replica last learned it (a leader updates it as it shrinks or expands the ISR)"),
)
# After the blocks: the controller's state and the requests it sent.
GLOBAL_FIELDS = (
    Field("next_record_id", "nextRecordId", 0, VALUE, doc="the id the next record a producer writes gets"),
    Field("q_leader", "quorumState.leader", -1, REPLICA, signal="leader",
          doc="the partition's leader as the controller (ZooKeeper) records it; - (None): offline"),
    Field("q_isr", "quorumState.isr", INITIAL_ALL, REPLICA_SET, signal="ISR",
          doc="the ISR as the controller (ZooKeeper) records it"),
    Field("requests", "leaderAndIsrRequests", (), REQUESTS,
          doc="every LeaderAndIsr request the controller sent, one per leader epoch: its leader and ISR"),
)
# Fields the options add (ghost and failure state), in the order they are appended.
OPTION_FIELDS = (
    Field("dead", "stoppedBrokers", 0, REPLICA_SET, signal="stopped",
          high=lambda t: t.layout.all_mask, present=lambda o, c: bool(o.max_crashes) or _az(c),
          show=lambda t, s, i: _members(t, s[i]), doc="the brokers that are stopped now"),
    Field("crashes", "stops", 0, VALUE,
          high=lambda t: t.options.max_crashes, present=lambda o, c: bool(o.max_crashes) or _az(c),
          show=lambda t, s, i: s[i], doc="broker stops so far, up to --max-crashes"),
    Field("flushed", "flushedOffset", 0, PER_REPLICA, REPLICAS,
          high=lambda t: t.config.log_size, present=lambda o, c: "lossy" in o.crash_kinds or _az(c),
          show=lambda t, s, i: {str(r + 1): s[i + r] for r in range(t.layout.n)},
          doc="each replica's flushed offset: records below it survive a power failure"),
    Field("acked", "ackedRecords", 0, VALUE,
          high=lambda t: (1 << t.config.max_records) - 1, present=lambda o, c: o.acks != "none",
          show=lambda t, s, i: [r for r in range(s[i].bit_length()) if s[i] >> r & 1],
          doc="the record ids the producer was told are written (acknowledged)"),
    Field("served", "served", 0, VALUE, OFFSETS,
          high=lambda t: t.fields.served_conflict, present=lambda o, c: c.consumer_reads != "off",
          show=_served,
          doc="per offset, the record id a consumer was served there; CONFLICT: two different records; -: none yet"),
    Field("racks", "racks", width=NONE, present=lambda o, c: bool(c.azs),
          show=lambda t, s, i: {str(r + 1): f"az{z + 1}" for r, z in enumerate(t.az_of)},
          doc="each replica's availability zone (configuration, fixed for the run)"),
    Field("az_failed", "azFailures", 0, VALUE,
          high=lambda t: t.consumers.max_az_failures, present=lambda o, c: _az(c),
          show=lambda t, s, i: s[i], doc="availability-zone failures so far, up to --max-az-failures"),
)


class Fields:
    """Where each field of one configuration lives: ``fields.acked`` is the first position of the
    ``acked`` field, -1 when its option is off. ``rows`` lists (field, position) of the option
    fields present, in table order; ``start`` is the first position after the classic fields;
    ``served_conflict`` the ``served`` field's conflict mark (``served_conflict``)."""

    def __init__(self, start: int, n: int, log_size: int, options: Any, consumers: Any, max_records: int = 0) -> None:
        self.start = start
        self.n = n
        self.log_size = log_size
        self.served_conflict = served_conflict(max_records)
        i = start
        rows = []
        for f in OPTION_FIELDS:
            setattr(self, f.name, -1)
            if f.present is not None and not f.present(options, consumers):
                continue
            setattr(self, f.name, i if f.width != NONE else -1)
            rows.append((f, i))
            i += self.width(f)
        self.rows = tuple(rows)
        self.length = i

    def width(self, f: Field) -> int:
        return {ONE: 1, REPLICAS: self.n, OFFSETS: self.log_size, NONE: 0}[f.width]

    def initial(self) -> tuple:
        """The option fields' part of ``Init``."""
        out: list = []
        for f, _ in self.rows:
            out += [f.initial] * self.width(f)
        return tuple(out)

    def slots(self):
        """(field, position) of every slot of the option fields, in order."""
        for f, i in self.rows:
            for k in range(self.width(f)):
                yield f, i + k


# Values of the view that no row holds: derived from the rows when the view is built.
DERIVED_DOCS = {
    "nextLeaderEpoch": "the leader epoch the controller's next LeaderAndIsr request gets",
    "quorumState.leaderEpoch": "the leader epoch of the controller's newest LeaderAndIsr request",
}


def field_docs() -> dict[str, str]:
    """Each view key's one-line description, for ``ReplicationModel.field_docs``."""
    out = {f.view: f.doc for f in (*REPLICA_FIELDS, *GLOBAL_FIELDS)}
    out.update(DERIVED_DOCS)
    out.update({f.view: f.doc for f in OPTION_FIELDS})
    return out
