"""Options for consumers, follower fetching, fetch-response handling and racks, validated up front.

Every option defaults to the classic behaviour (``ConsumerOptions().is_off``): with all of them
off (and the durability options off), ``make_model`` returns the unchanged ``ClassicModel``.

consumer_reads: "off" (no consumers, no ghost state), "leader" (consumers fetch from the leader
    only), "any" (KIP-392: consumers may fetch from any replica, leader or follower, each serving
    up to its own high watermark).
truncation: where a follower truncates a divergent log suffix:
    "on-become-follower" (KIP-320 as in ``Kip320.tla``: OffsetsForLeaderEpoch when it becomes
    follower; the classic step), "on-fetch" (Kafka 2.7+, ``isTruncationOnFetchSupported``: the
    fetch request carries ``lastFetchedEpoch``, the leader answers with a ``divergingEpoch`` and the
    follower truncates on that response, as apache/kafka#13230 orders it: truncate first),
    "on-fetch-hw-first" (bug K13, KAFKA-14704: the high watermark in the diverging response is
    applied before the truncation). The on-fetch forms apply to generation kip320.
azs: number of availability zones (``broker.rack``); 0: racks are not modelled.
placement: how the partition's replicas are placed on brokers in ``azs`` zones:
    "rack-aware" (``AdminUtils.assignReplicasToBrokersRackAware``: replica i in zone i mod azs,
    so with azs >= replicas no two share a zone); "naive" (``assignReplicasToBrokersRackUnaware``
    in a cluster of two brokers per zone numbered zone by zone: the replicas land on consecutive
    brokers, so replica i is in zone (i // 2) mod azs and the first two share a zone).
max_az_failures: how many availability-zone failures a run may have (each is a power failure of
    every broker in the zone; restarted brokers come back with their flushed logs).
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import ClassicConfig

READS = ("off", "leader", "any")
TRUNCATION = ("on-become-follower", "on-fetch", "on-fetch-hw-first")
PLACEMENT = ("rack-aware", "naive")
BROKERS_PER_AZ = 2  # the naive placement's cluster: brokers 1,2 in zone 1, 3,4 in zone 2, ...


def _int(name: str, value: object, low: int, high: int, meaning: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int ({meaning}), got {value!r} of type {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}={value} is out of range: use {low} <= {name} <= {high} ({meaning})")
    return value


@dataclass(frozen=True)
class ConsumerOptions:
    consumer_reads: str = "off"
    truncation: str = "on-become-follower"
    azs: int = 0
    placement: str = "rack-aware"
    max_az_failures: int = 0

    def validate(self, config: ClassicConfig) -> None:
        if self.consumer_reads not in READS:
            raise ValueError(f"consumer_reads={self.consumer_reads!r} is unknown: choose one of {', '.join(READS)}")
        if self.truncation not in TRUNCATION:
            raise ValueError(f"truncation={self.truncation!r} is unknown: choose one of {', '.join(TRUNCATION)}")
        if self.truncation != "on-become-follower" and config.generation != "kip320":
            raise ValueError(
                f"truncation={self.truncation!r} is truncation on fetch with a diverging epoch (Kafka 2.7+), "
                f"built on KIP-320's epoch fencing: use generation 'kip320' (not {config.generation!r}) "
                "or truncation='on-become-follower'"
            )
        azs = _int("azs", self.azs, 0, 6, "availability zones; 0 leaves racks out")
        if self.placement not in PLACEMENT:
            raise ValueError(f"placement={self.placement!r} is unknown: choose one of {', '.join(PLACEMENT)}")
        if self.placement != "rack-aware" and azs == 0:
            raise ValueError(f"placement={self.placement!r} places replicas in zones: set azs >= 1")
        f = _int("max_az_failures", self.max_az_failures, 0, 2, "availability-zone failures in a run")
        if f and azs == 0:
            raise ValueError(f"max_az_failures={f} needs zones to fail: set azs >= 1")

    @property
    def is_off(self) -> bool:
        return self == ConsumerOptions()

    def az_of(self, replicas: int) -> tuple[int, ...]:
        """The zone (0-based) of each replica (internal index), or () without racks."""
        if not self.azs:
            return ()
        if self.placement == "rack-aware":
            return tuple(i % self.azs for i in range(replicas))
        return tuple((i // BROKERS_PER_AZ) % self.azs for i in range(replicas))

    def describe(self) -> str:
        parts = []
        if self.consumer_reads != "off":
            parts.append(f"consumers read from {'the leader' if self.consumer_reads == 'leader' else 'any replica'}")
        if self.truncation != "on-become-follower":
            parts.append(f"truncation {self.truncation}")
        if self.azs:
            parts.append(f"{self.azs} AZs {self.placement}")
        if self.max_az_failures:
            parts.append(f"AZ failures x{self.max_az_failures}")
        return ", ".join(parts)
