"""The steps of the classic model, as small frozen values whose ``repr`` reads like the protocol.

Replica fields hold user-facing replica ids (1..n, like the spec's ``r1, r2, ...``); epochs,
offsets and record ids are as in the spec. Each class names the TLA+ action(s) it stands for; the
generation decides which variant of the step's enabling condition applies (``isrcheck.model.generations``).

Successor generation never builds an action: ``ActionTable`` creates every possible action of a
configuration once, and the hot path indexes into it (an availability-zone failure, whose broker
set varies, is memoised by its step).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from .config import ClassicConfig


@dataclass(frozen=True, slots=True)
class ControllerElectLeader:
    """The controller elects ``leader`` from the quorum ISR and bumps the leader epoch to ``epoch``
    (clean leader election after a failure or for rebalancing; ``ControllerElectLeader``)."""

    leader: int
    epoch: int


@dataclass(frozen=True, slots=True)
class ControllerShrinkIsr:
    """The controller removes a failed ``replica`` from the quorum ISR, under a new ``epoch``; if it
    was the leader the partition is left leaderless (``ControllerShrinkIsr``; ZooKeeper-era
    controller reacting to a broker failure or controlled shutdown)."""

    replica: int
    epoch: int


@dataclass(frozen=True, slots=True)
class BecomeLeader:
    """``replica`` receives a LeaderAndIsr request naming it leader at ``epoch`` (``BecomeLeader``)."""

    replica: int
    epoch: int


@dataclass(frozen=True, slots=True)
class LeaderWrite:
    """A producer write: a replica presuming leadership appends record ``record_id`` stamped with
    its leader ``epoch`` at ``offset`` (``LeaderWrite``; the ``acks`` option decides whether the producer
    is answered, ``isrcheck.model.steps.controller``)."""

    leader: int
    record_id: int
    epoch: int
    offset: int


@dataclass(frozen=True, slots=True)
class LeaderExpandIsr:
    """The true leader adds caught-up ``replica`` to the ISR in the quorum (``LeaderExpandIsr``;
    KIP-320: ``FencedLeaderExpandIsr``; first try: ``LeaderExpandIsrBetterFencing``)."""

    leader: int
    replica: int


@dataclass(frozen=True, slots=True)
class LeaderShrinkIsr:
    """The true leader removes lagging ``replica`` from the ISR (``replica.lag.time.max.ms``;
    ``LeaderShrinkIsr``, ``FencedLeaderShrinkIsr``, ``LeaderShrinkIsrBetterFencing``)."""

    leader: int
    replica: int


@dataclass(frozen=True, slots=True)
class LeaderIncHighWatermark:
    """A presumed leader advances its high watermark to ``hw`` once its ISR has the record
    (``LeaderIncHighWatermark``, ``FencedLeaderIncHighWatermark``, ``ImprovedLeaderIncHighWatermark``)."""

    leader: int
    hw: int


@dataclass(frozen=True, slots=True)
class BecomeFollowerAndTruncate:
    """``replica`` receives a LeaderAndIsr request naming ``leader`` at ``epoch``, becomes its
    follower and truncates its log to ``truncate_to`` (pre-0.11: its HW; KIP-101: OffsetForLeaderEpoch;
    KIP-279: walk back to the last matching entry; KIP-320: only against a leader of that epoch)."""

    replica: int
    leader: int
    epoch: int
    truncate_to: int


@dataclass(frozen=True, slots=True)
class BecomeFollower:
    """``replica`` follows ``leader`` at ``epoch`` without truncating (rejected KIP-320 draft:
    truncation is deferred to ``FollowerTruncate``; ``Kip320FirstTry!BecomeFollower``)."""

    replica: int
    leader: int
    epoch: int


@dataclass(frozen=True, slots=True)
class FollowerReplicate:
    """``follower`` fetches the record at ``offset`` from ``leader`` and takes the leader's HW,
    capped at its own end offset (``FollowerReplicate``, ``FollowerFetch``, ``FencedFollowerFetch``)."""

    follower: int
    leader: int
    offset: int


@dataclass(frozen=True, slots=True)
class FollowerTruncate:
    """``follower`` finds its last entry's epoch differs from the leader's and truncates to
    ``truncate_to`` (rejected KIP-320 draft: LOG_TRUNCATION error on fetch; ``FollowerTruncate``)."""

    follower: int
    leader: int
    truncate_to: int


ACTION_TYPES = (
    ControllerElectLeader,
    ControllerShrinkIsr,
    BecomeLeader,
    LeaderWrite,
    LeaderExpandIsr,
    LeaderShrinkIsr,
    LeaderIncHighWatermark,
    BecomeFollowerAndTruncate,
    BecomeFollower,
    FollowerReplicate,
    FollowerTruncate,
)


# -- broker stops and restarts, log flushes, unclean election (``isrcheck.model.steps.failures``): generated
# -- only when the durability options are on.


@dataclass(frozen=True, slots=True)
class ControlledShutdown:
    """Broker ``replica`` shuts down cleanly (``controlled.shutdown.enable``, KafkaController
    ``ControlledShutdown`` request): the controller first moves leadership to ``new_leader`` (-1 if
    the broker did not lead) and removes the broker from the ISR under ``epoch`` (-1: it was not in
    the ISR, no request); the broker flushes its log and stops."""

    replica: int
    new_leader: int
    epoch: int


@dataclass(frozen=True, slots=True)
class BrokerCrash:
    """Broker ``replica`` dies (process killed, ZooKeeper session or KRaft heartbeat expiry); the
    controller removes it from the ISR under ``epoch`` (-1: it was not in the ISR) and the partition
    is leaderless if it led. ``lost_unflushed``: the machine lost its page cache too (power failure),
    so the log keeps only its flushed prefix, ``log_end`` records (Kafka does not fsync each write;
    recovery truncates to the recovery point); without a power failure ``log_end`` is -1 and not
    shown."""

    replica: int
    epoch: int
    lost_unflushed: bool
    log_end: int

    def __repr__(self) -> str:
        # ``log_end`` means something only for a power failure (-1 otherwise: the log is kept whole).
        kept = f", log_end={self.log_end}" if self.lost_unflushed else ""
        return f"BrokerCrash(replica={self.replica}, epoch={self.epoch}, lost_unflushed={self.lost_unflushed}{kept})"


@dataclass(frozen=True, slots=True)
class BrokerRestart:
    """Stopped broker ``replica`` starts again with the log it has on disk; the controller sends it
    the current LeaderAndIsr (``KafkaController.onBrokerStartup``), and it catches up by fetching."""

    replica: int


@dataclass(frozen=True, slots=True)
class FlushLog:
    """``replica`` fsyncs its log up to its end offset ``offset`` (``log.flush.interval.messages`` /
    ``.ms``, segment roll, or the recovery-point checkpoint): those records survive a power failure."""

    replica: int
    offset: int


@dataclass(frozen=True, slots=True)
class UncleanLeaderElection:
    """No ISR member is alive and ``unclean.leader.election.enable=true``: the controller elects
    live out-of-sync ``leader`` at ``epoch`` with ISR {leader}, trading committed data for
    availability (``rule``: "any" live replica, or "highest-last-epoch" as in
    ocadaruma/kafka-spec ``UncleanLeaderElection3``)."""

    leader: int
    epoch: int
    rule: str


DURABILITY_ACTION_TYPES = (ControlledShutdown, BrokerCrash, BrokerRestart, FlushLog, UncleanLeaderElection)


# -- consumers, follower fetching and racks (``isrcheck.model.steps.consumers``, ``isrcheck.model.steps.failures``):
# -- generated only when their options are on.


@dataclass(frozen=True, slots=True)
class ConsumerFetch:
    """A consumer's fetch is answered by ``replica`` with record ``record_id`` at ``offset``: the
    leader (``Partition.fetchRecords`` with ``FetchIsolation.HIGH_WATERMARK``) or, with KIP-392
    follower fetching (``replica.selector.class``, ``client.rack``), a follower; either serves only
    below its own high watermark."""

    replica: int
    offset: int
    record_id: int


@dataclass(frozen=True, slots=True)
class FollowerUpdateHighWatermark:
    """``follower`` applies the high watermark of a fetch response from ``leader`` that also carries
    a diverging epoch, *before* truncating (bug K13, KAFKA-14704: ``AbstractFetcherThread``
    processed the partition data, ``log.maybeUpdateHighWatermark``, before ``truncateOnFetchResponse``;
    fixed in apache/kafka#13230). Its HW becomes ``hw`` = min(leader HW, its own log end offset),
    which may cover records the leader does not have."""

    follower: int
    leader: int
    hw: int


@dataclass(frozen=True, slots=True)
class AvailabilityZoneFailure:
    """Every running broker in availability zone ``az`` (``broker.rack``) loses power at once:
    ``brokers`` stop, each keeping only its flushed log prefix (``log_ends``, in ``brokers``
    order; Kafka does not fsync each write). The controller removes them from the ISR in one
    update under ``epoch`` (-1: none of them led or was in the ISR)."""

    az: int
    brokers: tuple[int, ...]
    epoch: int
    log_ends: tuple[int, ...]


CONSUMER_ACTION_TYPES = (ConsumerFetch, FollowerUpdateHighWatermark, AvailabilityZoneFailure)

ALL_ACTION_TYPES = ACTION_TYPES + DURABILITY_ACTION_TYPES + CONSUMER_ACTION_TYPES


class MadeOnDemand(dict):
    """Actions too many to list up front (a zone failure names its brokers and the log end each
    keeps), each created once, on first use, from its key: the action class's fields."""

    def __init__(self, cls: type) -> None:
        super().__init__()
        self.cls = cls

    def __missing__(self, key: tuple) -> object:
        action = self[key] = self.cls(*key)
        return action


class ActionTable:
    """Every action of one configuration, created once; indexed by internal replica indices."""

    def __init__(self, config: ClassicConfig, unclean_rule: str = "off") -> None:
        replicas, log_size, max_records = config.replicas, config.log_size, config.max_records
        rs = range(replicas)
        eps = range(config.max_leader_epoch + 1)
        offs = range(log_size + 1)
        self.elect = [[ControllerElectLeader(r + 1, e) for e in eps] for r in rs]
        self.controller_shrink = [[ControllerShrinkIsr(r + 1, e) for e in eps] for r in rs]
        self.become_leader = [[BecomeLeader(r + 1, e) for e in eps] for r in rs]
        self.write = [
            [[[LeaderWrite(r + 1, i, e, o) for o in offs] for e in eps] for i in range(max_records)]
            for r in rs
        ]
        self.expand = [[LeaderExpandIsr(r + 1, f + 1) for f in rs] for r in rs]
        self.shrink = [[LeaderShrinkIsr(r + 1, f + 1) for f in rs] for r in rs]
        self.inc_hw = [[LeaderIncHighWatermark(r + 1, h) for h in offs] for r in rs]
        self.follow_truncate = [
            [[[BecomeFollowerAndTruncate(f + 1, r + 1, e, o) for o in offs] for e in eps] for r in rs]
            for f in rs
        ]
        self.follow = [[[BecomeFollower(f + 1, r + 1, e) for e in eps] for r in rs] for f in rs]
        self.replicate = [[[FollowerReplicate(f + 1, r + 1, o) for o in offs] for r in rs] for f in rs]
        self.follower_truncate = [[[FollowerTruncate(f + 1, r + 1, o) for o in offs] for r in rs] for f in rs]
        # Durability: index epoch + 1 so that -1 (no controller request) is slot 0;
        # controlled[r][new_leader + 1][epoch + 1] shows replica ids (-1: no new leader).
        eps1 = range(-1, config.max_leader_epoch + 1)
        self.controlled = [
            [[ControlledShutdown(r + 1, nl + 1 if nl >= 0 else -1, e) for e in eps1] for nl in range(-1, replicas)]
            for r in rs
        ]
        self.crash = [[BrokerCrash(r + 1, e, False, -1) for e in eps1] for r in rs]
        self.lossy = [[[BrokerCrash(r + 1, e, True, o) for o in offs] for e in eps1] for r in rs]
        self.restart = [BrokerRestart(r + 1) for r in rs]
        self.flush = [[FlushLog(r + 1, o) for o in offs] for r in rs]
        self.unclean = [[UncleanLeaderElection(r + 1, e, unclean_rule) for e in eps1] for r in rs]
        # Consumers and fetch responses.
        self.consumer_fetch = [[[ConsumerFetch(x + 1, off, rid) for rid in range(max_records)]
                                for off in range(log_size)] for x in rs]
        self.az_failure = MadeOnDemand(AvailabilityZoneFailure)  # by (zone, brokers, epoch, log ends)
        self.update_hw = [[[FollowerUpdateHighWatermark(f + 1, ld + 1, h) for h in offs] for ld in rs] for f in rs]
        # The action classes, for properties that test a step's kind (``properties/`` does not import model).
        self.kinds = SimpleNamespace(**{k.__name__: k for k in ALL_ACTION_TYPES})
