"""The KRaft state layout as one table of fields (the rows of ``isrcheck.model.encoding.fields.Field``).

A KRaft state is one flat tuple: a block of ``BROKER_FIELDS`` for every broker (broker-major: the
broker's own state, its replica of the partition, and the controller's registration of it), then
``GLOBAL_FIELDS`` (the controller's metadata log, the spec's counters and ghost variables). Each row
names the spec variable it stands for (``view``: its key in traces and ITF), its initial value's
meaning and how to show it (``show``, which ``KraftModel.state_view`` calls for every row); adding a
field is adding a row (and its value in ``KraftModel.init_states``). ``Layout`` turns the table into
positions once, so steps index the tuple by name (``lay.LOG``) rather than by number.

Values: brokers are indices 0..n-1 (shown 1..n); a broker set is a bit mask; -1 is the spec's
``Nil``/``NoLeader``; a log is a tuple of record codes ``epoch * V + value`` (V = number of
values); a metadata record is ``(leader, leader_epoch, partition_epoch, isr, elr, last_known_elr,
replicas, adding, removing)`` (the last three: KIP-455's reassignment state, constant without one).
Rows with ``present`` are shown only in configurations where the field can change (``present(config)``),
so that the traces of configurations without reassignment read as before.

Abstracted away: nothing here; this module only describes the encoding the steps build.
"""

from __future__ import annotations

from typing import Any

from isrcheck.model.encoding.fields import Field

NIL = -1  # TLA+ Nil / NoLeader
NO_FLOOR = 1 << 20  # aux_flo's IntMax: no record written in the current leadership

# Broker status (broker_state[b].status); STARTING_REGISTERED is STARTING with the controller's
# RegisterBroker response in flight (the spec's message; see isrcheck.model.kraft docstring).
RUNNING, OFFLINE_CLEAN, OFFLINE_DIRTY, STARTING, STARTING_REGISTERED = range(5)
STATUS_NAMES = ("RUNNING", "OFFLINE_CLEAN", "OFFLINE_DIRTY", "STARTING", "STARTING(registered)")
# Replica role (partition_status[b]).
NO_ROLE, LEADER, FOLLOWER = range(3)
ROLE_NAMES = (None, "Leader", "Follower")
# Phases of a leader's AlterPartition slot (the request, then the controller's response).
# AP_ACCEPTED_NEW_EPOCH: accepted, completing a reassignment in a new leader epoch: the spec's
# leader ignores that response and waits for the metadata record (the slot clears when it applies it).
AP_NONE, AP_REQUEST, AP_REJECTED, AP_ACCEPTED, AP_ACCEPTED_NEW_EPOCH = 0, 1, 2, 3, 4
# A fetch in flight (split fetch): the request, then the leader's response.
FETCH_REQUEST, FETCH_OK, FETCH_DIVERGING, FETCH_ERROR = 1, 2, 3, 4
FETCH_NAMES = (None, "FetchRequest", "FetchResponse", "FetchResponse(diverging epoch)", "FetchResponse(error)")
AP_NAMES = (None, "request in flight", "rejected (response in flight)", "accepted (response in flight)",
            "accepted in a new leader epoch (response ignored; awaiting the metadata record)")

VALUES = "ABCDEFGH"


def _plain(t: Any, s: tuple, i: int) -> Any:
    return s[i]


def _broker(t: Any, s: tuple, i: int) -> int | None:
    return None if s[i] == NIL else s[i] + 1


def _brokers(t: Any, s: tuple, i: int) -> list[int]:
    return t.layout.ids(s[i])


def _records(t: Any, log: tuple) -> list[dict[str, Any]]:
    nv = t.config.values
    return [{"value": VALUES[r % nv], "epoch": r // nv} for r in log]


def _values(t: Any, s: tuple, i: int) -> list[str]:
    return [VALUES[v] for v in range(t.config.values) if s[i] >> v & 1]


def _followers(t: Any, s: tuple, i: int) -> dict[str, Any]:
    me = i // BLOCK
    return {str(p + 1): {"leo": None if leo == NIL else leo, "brokerEpoch": epoch}
            for p, (leo, epoch) in enumerate(s[i]) if p != me}


def _alter_partition(t: Any, s: tuple, i: int) -> dict[str, Any]:
    slot = s[i]
    if not slot:
        return {"phase": None, "isr": [], "brokerEpochs": []}
    phase, isr, epochs = slot[:3]  # an accepted response also carries the replica set (slot[3])
    return {"phase": AP_NAMES[phase], "isr": t.layout.ids(isr),
            "brokerEpochs": [[p + 1, epochs[p]] for p in t.layout.members[isr]]}


def _fetches(t: Any, s: tuple, i: int) -> list[str]:
    """The fetches in flight as sentences (a list, so that a trace shows one changing as a whole)."""
    out = []
    for peer, slot in enumerate(s[i]):
        if slot:
            way = "to" if slot[0] == FETCH_REQUEST else "from"
            out.append(f"{FETCH_NAMES[slot[0]]} {way} {peer + 1}, offset {slot[1]}, leader epoch {slot[2]}")
    return out


def reassigning(config: Any) -> bool:
    """Whether the replica set can change (reassignment or spare brokers): its fields are shown."""
    return bool(config.reassignments or config.spare_brokers)


def _metadata_log(t: Any, s: tuple, i: int) -> list[dict[str, Any]]:
    ids = t.layout.ids
    out = []
    for leader, leader_epoch, partition_epoch, isr, elr, last_known_elr, replicas, adding, removing in s[i]:
        record = {"leader": None if leader == NIL else leader + 1, "leaderEpoch": leader_epoch,
                  "partitionEpoch": partition_epoch, "isr": ids(isr)}
        if t.config.gen.elr:
            record["elr"], record["lastKnownElr"] = ids(elr), ids(last_known_elr)
        if reassigning(t.config):
            record["replicas"], record["adding"], record["removing"] = ids(replicas), ids(adding), ids(removing)
        out.append(record)
    return out


def shown(field: Field, config: Any) -> bool:
    """Whether ``field`` appears in views of this configuration (rows without ``present``: always)."""
    return field.present is None or field.present(config)


def _replicas(t: Any, s: tuple, i: int) -> Any:
    """The broker's copy of the replica set: a list with reassignment, else whether it has one."""
    return t.layout.ids(s[i]) if reassigning(t.config) else bool(s[i])


BROKER_FIELDS = (
    Field("status", "brokerState.status", "RUNNING", show=lambda t, s, i: STATUS_NAMES[s[i]],
          doc="the broker's lifecycle: RUNNING, OFFLINE after a clean or a lossy (unflushed) shutdown, STARTING "
              "(registered: the controller's answer in flight)"),
    Field("broker_epoch", "brokerState.brokerEpoch", "b + 1", show=_plain,
          doc="the broker epoch the broker holds from its last registration (KIP-903); 0: none"),
    Field("md_offset", "brokerMetadataLog", "1 in the ISR, else 0", show=_plain,
          doc="how many records of the controller's metadata log the broker has applied"),
    Field("fetch_from", "fetcher", "broker 1 on followers", show=_broker,
          doc="the broker this broker's replica fetches from; - (None): it fetches from no one (it leads, or knows "
              "no leader)"),
    Field("role", "partitionStatus", "Leader on 1, else Follower", show=lambda t, s, i: ROLE_NAMES[s[i]],
          doc="the replica's role as the broker believes it: Leader, Follower or - (none: offline)"),
    Field("md_replicas", "partitionMetadata.replicas", "the initial replicas (spare brokers: none)", show=_replicas,
          doc="the replica set as the broker last applied it (without reassignment: whether it has the partition's "
              "metadata at all; empty/false: none yet since it registered, or its replica was removed)"),
    Field("md_isr", "partitionMetadata.isr", "initial ISR (stale replicas: all)", show=_brokers,
          doc="the ISR as the broker last applied it from the metadata log"),
    Field("md_maximal_isr", "partitionMetadata.maximalIsr", "as md_isr", show=_brokers,
          doc="the leader's ISR plus the members its pending AlterPartition adds (KIP-497): the HW waits for them"),
    Field("md_leader", "partitionMetadata.leader", 0, show=_broker,
          doc="the leader as the broker last applied it; - (None): no leader"),
    Field("md_leader_epoch", "partitionMetadata.leaderEpoch", 1, show=_plain,
          doc="the leader epoch as the broker last applied it"),
    Field("md_partition_epoch", "partitionMetadata.partitionEpoch", "2 (stale replicas: 1)", show=_plain,
          doc="the partition epoch (bumped by every change of leader, ISR or ELR) as the broker last applied it"),
    Field("log", "partitionData.log", (), show=lambda t, s, i: _records(t, s[i]),
          doc="the replica's log: each record's value and the leader epoch it was written in, offset 0 first"),
    Field("hw", "partitionData.hwm", 0, show=_plain,
          doc="the replica's high watermark: records below this offset are committed as the replica knows it"),
    Field("epoch_start", "partitionLeso", "0 on the leader, else -1", show=_plain,
          doc="where this leader's epoch starts in its log (its LEO when it became leader); -1: not leading"),
    Field("followers", "partitionReplicaState", "blank", show=_followers,
          doc="per follower, as this leader knows it from the last fetch: its LEO (- : no fetch yet this "
              "leadership) and broker epoch"),
    Field("alter_partition", "pendingAlterPartition", 0, show=_alter_partition,
          doc="this leader's AlterPartition in flight: the phase, the ISR it proposes and the broker epoch it "
              "names for each member"),
    Field("write_floor", "auxFlo", NO_FLOOR, show=lambda t, s, i: None if s[i] == NO_FLOOR else s[i],
          doc="(ghost) the first offset this leader wrote in its current leadership; only records from it on are "
              "acknowledged by it; -: none written"),
    Field("c_unfenced", "controller.unfenced", "1 for the initial ISR", show=lambda t, s, i: bool(s[i]),
          doc="whether the controller counts the broker unfenced (false: fenced, not eligible for ISR or leadership)"),
    Field("c_broker_epoch", "controller.brokerEpoch", "b + 1", show=_plain,
          doc="the broker epoch the controller registered for the broker: a request naming another is stale"),
    Field("fetches", "fetchesInFlight", "none", show=_fetches,
          doc="with --split-fetch: the fetch request or response in flight between this broker and a peer"),
    Field("reg_requests", "staleRegisterBrokerRequests", "none",
          show=lambda t, s, i: [{"brokerEpoch": e} for e in s[i]],
          doc="RegisterBroker requests sent by earlier incarnations of b, still in flight after it shut "
              "down (sorted tuple of the broker epoch each sent); the current one is status STARTING"),
    Field("reg_response", "registerBrokerResponse", 0, show=lambda t, s, i: s[i] or None,
          doc="the broker epoch in the RegisterBroker response to b's current incarnation, in flight "
              "(status STARTING(registered)); 0: none"),
)
GLOBAL_FIELDS = (
    Field("metadata_log", "controller.metadataLog", "one PartitionChange record", show=_metadata_log,
          doc="the controller's metadata log of PartitionChange records (leader, epochs, ISR, ELR); its last "
              "record is the partition now"),
    Field("last_broker_epoch", "auxBrokerEpoch", "n", show=_plain,
          doc="the last broker epoch the controller assigned (the next registration gets one more)"),
    Field("unclean_shutdowns", "uncleanShutdowns", 0, show=_plain,
          doc="lossy (unclean) shutdowns so far, up to --max-crashes"),
    Field("clean_shutdowns", "cleanShutdowns", 0, show=_plain,
          doc="clean (controlled) shutdowns so far, up to --max-crashes"),
    Field("fencings", "fencings", 0, show=_plain,
          doc="fencings of a broker by the controller so far, up to --max-fencings"),
    Field("leader_shrinks", "leaderShrinks", 0, show=_plain,
          doc="ISR shrinks by a leader so far, up to --max-leader-shrinks"),
    Field("sent", "invSent", 0, show=_values, doc="(ghost) the values a producer has sent"),
    Field("acked", "invPosAcked", 0, show=_values,
          doc="(ghost) the values the producer was told are written (acks=all)"),
    Field("nacked", "invNegAcked", 0, show=_values,
          doc="(ghost) the values the producer was told failed (it may retry them)"),
    Field("true_hw", "invTrueHwm", 0, show=_plain,
          doc="(ghost) the highest high watermark any leader reached: what consumers may have read"),
    Field("consumed", "invConsumed", (), show=lambda t, s, i: _records(t, s[i]),
          doc="(ghost) the records below invTrueHwm, as the leader that advanced it had them: what consumers read"),
    Field("reassignments", "reassignments", 0, show=_plain, present=lambda c: c.reassignments > 0,
          doc="partition reassignments started so far (PerformPartitionReassignment), up to --max-reassignments"),
)

# Offsets inside a broker's block, in BROKER_FIELDS order.
(STATUS, BROKER_EPOCH, MD_OFFSET, FETCH_FROM, ROLE, MD_REPLICAS, MD_ISR, MD_MAXIMAL_ISR, MD_LEADER, MD_LEADER_EPOCH,
 MD_PARTITION_EPOCH, LOG, HW, EPOCH_START, FOLLOWERS, ALTER_PARTITION, WRITE_FLOOR, C_UNFENCED,
 C_BROKER_EPOCH, FETCHES, REG_REQUESTS, REG_RESPONSE) = range(len(BROKER_FIELDS))
BLOCK = len(BROKER_FIELDS)
# Offsets after the broker blocks (add ``Layout.g``), in GLOBAL_FIELDS order.
(METADATA_LOG, LAST_BROKER_EPOCH, UNCLEAN_SHUTDOWNS, CLEAN_SHUTDOWNS, FENCINGS, LEADER_SHRINKS, SENT, ACKED,
 NACKED, TRUE_HW, CONSUMED, REASSIGNMENTS) = range(len(GLOBAL_FIELDS))
# Fields of a metadata record.
R_LEADER, R_LEADER_EPOCH, R_PARTITION_EPOCH, R_ISR, R_ELR, R_LAST_KNOWN_ELR, R_REPLICAS, R_ADDING, R_REMOVING = range(9)
# What the view shows under each key: the row's one-line description (``KraftModel.field_docs``).
FIELD_DOCS = {f.view: f.doc for f in (*BROKER_FIELDS, *GLOBAL_FIELDS)}
assert all(FIELD_DOCS.values()), "every field has a one-line description"
assert BROKER_FIELDS[REG_RESPONSE].name == "reg_response" and GLOBAL_FIELDS[REASSIGNMENTS].name == "reassignments"


class Layout:
    """Positions and broker-set tables for ``n`` brokers, computed once: broker b's field F is at
    ``b * BLOCK + F``, global field G at ``g + G``."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.brokers = tuple(range(n))
        self.base = tuple(b * BLOCK for b in range(n))
        self.g = n * BLOCK
        self.length = self.g + len(GLOBAL_FIELDS)
        self.all_mask = (1 << n) - 1
        self.bit = tuple(1 << b for b in range(n))
        self.members = tuple(tuple(b for b in range(n) if mask >> b & 1) for mask in range(1 << n))
        self.size = tuple(len(m) for m in self.members)
        self.blank_followers = tuple((NIL, 0) for _ in range(n))
        self.no_fetches = (0,) * n

    def ids(self, mask: int) -> list[int]:
        """A broker set as the user's broker ids (1..n)."""
        return [b + 1 for b in self.members[mask]]
