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
values); a metadata record is ``(leader, leader_epoch, partition_epoch, isr, elr, last_known_elr)``.

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
AP_NONE, AP_REQUEST, AP_REJECTED, AP_ACCEPTED = 0, 1, 2, 3
# A fetch in flight (split fetch): the request, then the leader's response.
FETCH_REQUEST, FETCH_OK, FETCH_DIVERGING, FETCH_ERROR = 1, 2, 3, 4
FETCH_NAMES = (None, "FetchRequest", "FetchResponse", "FetchResponse(diverging epoch)", "FetchResponse(error)")
AP_NAMES = (None, "request in flight", "rejected (response in flight)", "accepted (response in flight)")

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
    phase, isr, epochs = slot
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


def _metadata_log(t: Any, s: tuple, i: int) -> list[dict[str, Any]]:
    ids = t.layout.ids
    out = []
    for leader, leader_epoch, partition_epoch, isr, elr, last_known_elr in s[i]:
        record = {"leader": None if leader == NIL else leader + 1, "leaderEpoch": leader_epoch,
                  "partitionEpoch": partition_epoch, "isr": ids(isr)}
        if t.config.gen.elr:
            record["elr"], record["lastKnownElr"] = ids(elr), ids(last_known_elr)
        out.append(record)
    return out


BROKER_FIELDS = (
    Field("status", "brokerState.status", "RUNNING", show=lambda t, s, i: STATUS_NAMES[s[i]],
          doc="broker_state[b].status"),
    Field("broker_epoch", "brokerState.brokerEpoch", "b + 1", show=_plain,
          doc="broker_state[b].broker_epoch (0: none)"),
    Field("md_offset", "brokerMetadataLog", "1 in the ISR, else 0", show=_plain,
          doc="Len(broker_metadata_log[b]): the broker's copy is this prefix of the controller's log"),
    Field("fetch_from", "fetcher", "broker 1 on followers", show=_broker,
          doc="the broker whose fetcher holds the partition"),
    Field("role", "partitionStatus", "Leader on 1, else Follower", show=lambda t, s, i: ROLE_NAMES[s[i]],
          doc="partition_status[b]"),
    Field("md_known", "partitionMetadata.replicas", 1, show=lambda t, s, i: bool(s[i]),
          doc="1: replicas = all brokers; 0: BlankMetadata"),
    Field("md_isr", "partitionMetadata.isr", "initial ISR (stale replicas: all)", show=_brokers, doc="bit mask"),
    Field("md_maximal_isr", "partitionMetadata.maximalIsr", "as md_isr", show=_brokers,
          doc="ISR + pending additions (KIP-497)"),
    Field("md_leader", "partitionMetadata.leader", 0, show=_broker, doc="-1: NoLeader"),
    Field("md_leader_epoch", "partitionMetadata.leaderEpoch", 1, show=_plain),
    Field("md_partition_epoch", "partitionMetadata.partitionEpoch", "2 (stale replicas: 1)", show=_plain),
    Field("log", "partitionData.log", (), show=lambda t, s, i: _records(t, s[i]),
          doc="tuple of record codes epoch * V + value"),
    Field("hw", "partitionData.hwm", 0, show=_plain, doc="high watermark (0-based, exclusive)"),
    Field("epoch_start", "partitionLeso", "0 on the leader, else -1", show=_plain,
          doc="leader epoch start offset"),
    Field("followers", "partitionReplicaState", "blank", show=_followers,
          doc="per peer (LEO as last fetched, broker epoch) as this leader knows it; LEO -1: no fetch yet"),
    Field("alter_partition", "pendingAlterPartition", 0, show=_alter_partition,
          doc="0, or (phase, proposed ISR, broker epoch named per proposed member)"),
    Field("write_floor", "auxFlo", NO_FLOOR, show=lambda t, s, i: None if s[i] == NO_FLOOR else s[i],
          doc="lowest offset written in this leadership (acks)"),
    Field("c_unfenced", "controller.unfenced", "1 for the initial ISR", show=lambda t, s, i: bool(s[i]),
          doc="con_broker_reg[b].status = UNFENCED"),
    Field("c_broker_epoch", "controller.brokerEpoch", "b + 1", show=_plain, doc="con_broker_reg[b].broker_epoch"),
    Field("fetches", "fetchesInFlight", "none", show=_fetches,
          doc="split fetch only: per peer, the fetch request or response in flight (spec: pending_response)"),
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
          doc="con_metadata_log; con_partition_metadata is its last record"),
    Field("last_broker_epoch", "auxBrokerEpoch", "n", show=_plain,
          doc="aux_broker_epoch: the last broker epoch assigned"),
    Field("unclean_shutdowns", "uncleanShutdowns", 0, show=_plain, doc="aux_ctrs.unclean_shutdown_ctr"),
    Field("clean_shutdowns", "cleanShutdowns", 0, show=_plain,
          doc="aux_ctrs.clean_shutdown_ctr (and crashes without loss)"),
    Field("fencings", "fencings", 0, show=_plain, doc="aux_ctrs.fence_broker_ctr"),
    Field("leader_shrinks", "leaderShrinks", 0, show=_plain, doc="aux_ctrs.leader_shrink_isr_ctr"),
    Field("sent", "invSent", 0, show=_values, doc="bit mask of values written"),
    Field("acked", "invPosAcked", 0, show=_values, doc="bit mask of values positively acknowledged"),
    Field("nacked", "invNegAcked", 0, show=_values, doc="bit mask of values negatively acknowledged"),
    Field("true_hw", "invTrueHwm", 0, show=_plain, doc="the highest HW any leader reached"),
    Field("consumed", "invConsumed", (), show=lambda t, s, i: _records(t, s[i]),
          doc="the records below true_hw as the leader that advanced it had them"),
)

# Offsets inside a broker's block, in BROKER_FIELDS order.
(STATUS, BROKER_EPOCH, MD_OFFSET, FETCH_FROM, ROLE, MD_KNOWN, MD_ISR, MD_MAXIMAL_ISR, MD_LEADER, MD_LEADER_EPOCH,
 MD_PARTITION_EPOCH, LOG, HW, EPOCH_START, FOLLOWERS, ALTER_PARTITION, WRITE_FLOOR, C_UNFENCED,
 C_BROKER_EPOCH, FETCHES, REG_REQUESTS, REG_RESPONSE) = range(len(BROKER_FIELDS))
BLOCK = len(BROKER_FIELDS)
# Offsets after the broker blocks (add ``Layout.g``), in GLOBAL_FIELDS order.
(METADATA_LOG, LAST_BROKER_EPOCH, UNCLEAN_SHUTDOWNS, CLEAN_SHUTDOWNS, FENCINGS, LEADER_SHRINKS, SENT, ACKED,
 NACKED, TRUE_HW, CONSUMED) = range(len(GLOBAL_FIELDS))
# Fields of a metadata record.
R_LEADER, R_LEADER_EPOCH, R_PARTITION_EPOCH, R_ISR, R_ELR, R_LAST_KNOWN_ELR = range(6)
assert BROKER_FIELDS[REG_RESPONSE].name == "reg_response" and GLOBAL_FIELDS[CONSUMED].name == "consumed"


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
