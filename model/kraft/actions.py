"""The KRaft steps as small frozen values whose ``repr`` reads like the spec's actions.

Brokers are shown as ids 1..n. A controller step that changes the leader says whom it elected:
``elected=2``, or ``elected=NoLeader`` (the spec's name) when the partition is left without one; a
step that leaves the leader as it was does not mention ``elected`` at all (the field is None).
"""

from __future__ import annotations

from dataclasses import dataclass, fields


def _elected(value: int | str | None) -> str:
    """``, elected=...`` for a step that changed the leader, "" for one that did not."""
    if value is None:
        return ""
    return ", elected=NoLeader" if value == "none" else f", elected={value}"


class _Elects:
    """The repr of a controller step: its fields, then whom it elected (see the module docstring)."""

    __slots__ = ()

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.name != "elected")
        return f"{type(self).__name__}({shown}{_elected(self.elected)})"


@dataclass(frozen=True, slots=True)
class BrokerStart:
    """A stopped broker starts and sends RegisterBroker (``BrokerStart``)."""

    broker: int


@dataclass(frozen=True, slots=True, repr=False)
class ReceiveBrokerRegRequest(_Elects):
    """The controller registers ``broker`` with a new ``broker_epoch`` and unfences it; ``unclean``:
    KIP-966's registration with epoch 0, which first removes it from the ISR and the ELR; ``stale``:
    the request of an incarnation that has shut down since (the lost registration)."""

    broker: int
    broker_epoch: int
    unclean: bool
    elected: int | str | None
    stale: bool = False

    def __repr__(self) -> str:
        extra = ", stale=True" if self.stale else ""
        return (f"ReceiveBrokerRegRequest(broker={self.broker}, broker_epoch={self.broker_epoch}, "
                f"unclean={self.unclean!r}, elected={self.elected!r}{extra})")


@dataclass(frozen=True, slots=True)
class ReceiveBrokerRegResponse:
    """The broker learns its epoch and runs (``ReceiveBrokerRegResponse``)."""

    broker: int
    broker_epoch: int


@dataclass(frozen=True, slots=True, repr=False)
class UnfenceBroker(_Elects):
    """The controller unfences a running broker (a heartbeat; ``UnfenceBroker``)."""

    broker: int
    elected: int | str | None


@dataclass(frozen=True, slots=True, repr=False)
class FenceBroker(_Elects):
    """The controller fences a broker that missed heartbeats (``FenceBroker``)."""

    broker: int
    elected: int | str | None


@dataclass(frozen=True, slots=True)
class ReceiveMetadataUpdate:
    """``broker`` replicates the metadata log up to ``offset`` (1-based, as the spec) and applies the
    PartitionChange record there: ``then`` names the sub-action (RemainLeader, BecomeLeaderInNewEpoch,
    RemainFollower, BecomeFollowerInNewEpoch, WaitForLeaderChange, or MetadataNoOp)."""

    broker: int
    offset: int
    then: str


@dataclass(frozen=True, slots=True)
class SendAlterPartitionRequest:
    """The leader proposes ``isr`` and counts the maximal ISR meanwhile (``SendAlterPartitionRequest``)."""

    leader: int
    isr: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ReceiveAlterPartitionRequest:
    """The controller accepts or rejects (FencedLeaderEpoch, IneligibleReplica) a proposed ISR;
    ``accepted, reassigned``: it also completes a reassignment, in a new leader epoch led by
    ``elected`` (the same leader unless it was removed)."""

    leader: int
    isr: tuple[int, ...]
    result: str
    elected: int | None = None

    def __repr__(self) -> str:
        extra = "" if self.elected is None else f", elected={self.elected}"
        return f"ReceiveAlterPartitionRequest(leader={self.leader}, isr={self.isr!r}, result={self.result!r}{extra})"


@dataclass(frozen=True, slots=True)
class ReceiveAlterPartitionResponse:
    """The leader commits the accepted ISR or rolls its maximal ISR back."""

    leader: int
    result: str


@dataclass(frozen=True, slots=True)
class Fetch:
    """``follower`` fetches from ``leader`` at ``offset``: the leader records the follower's offset and
    broker epoch, may advance its HW, and returns one record (``result`` ok), or answers with a
    diverging epoch and the follower truncates to ``truncate_to`` (SendFetchRequest,
    ReceiveFetchRequest and ReceiveFetchResponse as one step)."""

    follower: int
    leader: int
    offset: int
    result: str
    truncate_to: int | None = None

    def __repr__(self) -> str:
        cut = "" if self.truncate_to is None else f", truncate_to={self.truncate_to}"
        return f"Fetch(follower={self.follower}, leader={self.leader}, offset={self.offset}, result={self.result}{cut})"


@dataclass(frozen=True, slots=True)
class WriteRecordToLeader:
    """A producer's acks=all write of ``value`` at ``offset`` (``WriteRecordToLeader``)."""

    leader: int
    value: str
    offset: int


@dataclass(frozen=True, slots=True)
class Shutdown:
    """``kind``: the spec's action: UncleanShutdown / DataLossShutdown (the log is lost) or
    CleanShutdown / NoDataLossShutdown (``clean`` False: a crash that loses no data but saves no
    broker epoch); the controller fences the broker at once."""

    kind: str
    broker: int
    clean: bool
    elected: int | str | None

    def __repr__(self) -> str:
        extra = "" if self.kind != "NoDataLossShutdown" else f", clean={self.clean}"
        return f"{self.kind}(broker={self.broker}{extra}{_elected(self.elected)})"


@dataclass(frozen=True, slots=True)
class SendFetchRequest:
    """Split fetch: ``follower`` sends a Fetch at ``offset`` to ``leader`` (``SendFetchRequest``)."""

    follower: int
    leader: int
    offset: int


@dataclass(frozen=True, slots=True)
class ReceiveFetchRequest:
    """Split fetch: ``broker`` answers ``follower``'s fetch: ok, diverging or error (``ReceiveFetchRequest``)."""

    broker: int
    follower: int
    offset: int
    result: str


@dataclass(frozen=True, slots=True)
class ReceiveFetchResponse:
    """Split fetch: ``follower`` handles ``leader``'s response (``ReceiveFetchResponse``); ``ignored``
    when the partition moved to another fetcher, offset or leader epoch meanwhile."""

    follower: int
    leader: int
    offset: int
    result: str


@dataclass(frozen=True, slots=True, repr=False)
class PerformPartitionReassignment(_Elects):
    """The controller starts a reassignment (an operator's AlterPartitionReassignments, KIP-455):
    target replicas = replicas + ``adding`` - ``removing``. With nothing to add it completes at once
    (the removed replicas leave, a new leader epoch); else the replica set grows and the adding
    replicas must catch up and join the ISR before an AlterPartition completes it."""

    adding: tuple[int, ...]
    removing: tuple[int, ...]
    elected: int | str | None
