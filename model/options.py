"""The options of the replication model beyond its bounds and generation, each declared once with
its allowed values (``make_model``'s signature, hence the command line's choices, reads the
tuples below), validated up front.

Every option defaults to the classic behaviour (``DurabilityOptions().is_classic``,
``ConsumerOptions().is_off``): with all of them off the model's states, counts and speed are
exactly those of hachikuji/kafka-specification. Each option, when on, names the Kafka mechanism it
adds; the fields it adds are rows of ``isrcheck.model.encoding.fields`` and its steps are in
``isrcheck.model.steps``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import ClassicConfig
from .generations import GENERATIONS

ACKS = ("none", "0", "1", "all")
STOPS = ("all", "controlled", "crash", "lossy", "crash+lossy")
UNCLEAN = ("off", "any", "highest-last-epoch")
READS = ("off", "leader", "any")
TRUNCATION = ("on-become-follower", "on-fetch", "on-fetch-hw-first")
PLACEMENT = ("rack-aware", "naive")
# The options above by name, for code that goes through them all (isrcheck.model.property_hints).
CHOICES = {"acks": ACKS, "stops": STOPS, "unclean_election": UNCLEAN, "consumer_reads": READS,
           "truncation": TRUNCATION, "placement": PLACEMENT}
MAX_CRASHES = 4
BROKERS_PER_AZ = 2  # the naive placement's cluster: brokers 1,2 in zone 1, 3,4 in zone 2, ...


def _int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {value!r} of type {type(value).__name__}")
    return value


@dataclass(frozen=True)
class DurabilityOptions:
    """What users are promised, and the failures that test the promise.

    acks: the producers' ``acks``: "none" (classic: no acknowledgement ghost state), "0" (fire and
        forget: nothing is ever acknowledged), "1" (acknowledged when the leader appends), "all"
        (acknowledged when the leader's HW passes the record while its ISR has at least
        ``min_insync_replicas`` members).
    min_insync_replicas: ``min.insync.replicas``; an acks=all write is refused (NotEnoughReplicas)
        while the leader's ISR is smaller. Only meaningful with acks="all".
    max_crashes: how many times, in one run, a broker may stop (controlled shutdown or crash); a
        stopped broker may restart any number of times. 0: brokers never stop (classic).
    stops: which stops are explored: "controlled" shutdown (leadership moved first, log flushed),
        "crash" (process dies, the page cache survives), "lossy" (power failure: the log keeps only
        its flushed prefix), "crash+lossy", or "all".
    unclean_election: ``unclean.leader.election.enable``: "off", "any" live replica, or the
        "highest-last-epoch" rule of ocadaruma/kafka-spec; used only when no ISR member is alive.
    expand_before_epoch_start: bug K6: the leader admits a follower that reached its (stale) HW
        before the HW has reached the start of the leader's epoch (kip320 generations only).
    kip966_unclean_recovery: KIP-966's rule for a broker back from an unclean (lossy) shutdown: it
        leaves the ISR at the crash even as its last member, so it cannot be elected cleanly until
        it has caught up and been re-admitted (the ZooKeeper-era generations have no Eligible
        Leader Replicas, which ``--generation kraft-kip966`` models: the partition stays offline instead).
    """

    acks: str = "none"
    min_insync_replicas: int = 1
    max_crashes: int = 0
    stops: str = "all"
    unclean_election: str = "off"
    expand_before_epoch_start: bool = False
    kip966_unclean_recovery: bool = False

    def validate(self, config: ClassicConfig, *, az_failures: int = 0) -> None:
        """``az_failures``: availability-zone failures the rack options add (``ConsumerOptions``);
        they are lossy stops too, so KIP-966's rule applies to them."""
        if self.acks not in ACKS:
            raise ValueError(f"acks={self.acks!r} is unknown: choose one of {', '.join(ACKS)}")
        m = _int("min_insync_replicas", self.min_insync_replicas)
        if not 1 <= m <= config.replicas:
            raise ValueError(
                f"min_insync_replicas={m} is out of range: use 1 <= min_insync_replicas <= replicas "
                f"(= {config.replicas}); a larger value would refuse every acks=all write"
            )
        if m > 1 and self.acks != "all":
            raise ValueError(
                f"min_insync_replicas={m} only constrains acks=all writes: pass acks='all' or leave "
                "min_insync_replicas at 1"
            )
        c = _int("max_crashes", self.max_crashes)
        if not 0 <= c <= MAX_CRASHES:
            raise ValueError(
                f"max_crashes={c} is out of range: use 0 <= max_crashes <= {MAX_CRASHES} (each stop "
                "multiplies the state space)"
            )
        if self.stops not in STOPS:
            raise ValueError(f"stops={self.stops!r} is unknown: choose one of {', '.join(STOPS)}")
        if self.stops != "all" and c == 0:
            raise ValueError(f"stops={self.stops!r} has no effect with max_crashes=0: set max_crashes >= 1")
        if self.unclean_election not in UNCLEAN:
            raise ValueError(
                f"unclean_election={self.unclean_election!r} is unknown: choose one of {', '.join(UNCLEAN)}"
            )
        if self.unclean_election != "off" and not self.crash_kinds & {"crash", "lossy"}:
            raise ValueError(
                f"unclean_election={self.unclean_election!r} needs a broker that can die while in the ISR: "
                "set max_crashes >= 1 with stops 'crash', 'lossy', 'crash+lossy' or 'all'"
            )
        if not isinstance(self.expand_before_epoch_start, bool):
            raise ValueError(f"expand_before_epoch_start must be a bool, got {self.expand_before_epoch_start!r}")
        if self.expand_before_epoch_start and not GENERATIONS[config.generation].expand_waits_for_epoch_start:
            raise ValueError(
                f"expand_before_epoch_start applies to generation kip320 or kip320-first-try (whose leaders "
                f"wait for the HW to reach their epoch before expanding); {config.generation} never waits"
            )
        if not isinstance(self.kip966_unclean_recovery, bool):
            raise ValueError(f"kip966_unclean_recovery must be a bool, got {self.kip966_unclean_recovery!r}")
        if self.kip966_unclean_recovery and "lossy" not in self.crash_kinds and not az_failures:
            raise ValueError(
                "kip966_unclean_recovery governs brokers back from a lossy crash: set max_crashes >= 1 with "
                "stops 'lossy', 'crash+lossy' or 'all', or max_az_failures >= 1"
            )

    @property
    def crash_kinds(self) -> frozenset[str]:
        """The kinds of stop explored: a subset of {"controlled", "crash", "lossy"}."""
        if self.max_crashes == 0:
            return frozenset()
        if self.stops == "all":
            return frozenset(("controlled", "crash", "lossy"))
        return frozenset(self.stops.split("+"))

    @property
    def is_classic(self) -> bool:
        return self == DurabilityOptions()

    def describe(self) -> str:
        parts = []
        if self.acks != "none":
            parts.append(f"acks={self.acks}")
        if self.min_insync_replicas != 1:
            parts.append(f"min.insync.replicas={self.min_insync_replicas}")
        if self.max_crashes:
            parts.append(f"stops={self.stops}x{self.max_crashes}")
        if self.unclean_election != "off":
            parts.append(f"unclean={self.unclean_election}")
        if self.expand_before_epoch_start:
            parts.append("expand-before-epoch-start")
        if self.kip966_unclean_recovery:
            parts.append("kip966-unclean-recovery")
        return ", ".join(parts)


def _bounded(name: str, value: object, low: int, high: int, meaning: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int ({meaning}), got {value!r} of type {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}={value} is out of range: use {low} <= {name} <= {high} ({meaning})")
    return value


@dataclass(frozen=True)
class ConsumerOptions:
    """Consumers, follower fetching, fetch-response handling and racks; all off: no change.

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
        if self.truncation != "on-become-follower" and not GENERATIONS[config.generation].fenced:
            raise ValueError(
                f"truncation={self.truncation!r} is truncation on fetch with a diverging epoch (Kafka 2.7+), "
                f"built on KIP-320's epoch fencing: use generation 'kip320' (not {config.generation!r}) "
                "or truncation='on-become-follower'"
            )
        azs = _bounded("azs", self.azs, 0, 6, "availability zones; 0 leaves racks out")
        if self.placement not in PLACEMENT:
            raise ValueError(f"placement={self.placement!r} is unknown: choose one of {', '.join(PLACEMENT)}")
        if self.placement != "rack-aware" and azs == 0:
            raise ValueError(f"placement={self.placement!r} places replicas in zones: set azs >= 1")
        f = _bounded("max_az_failures", self.max_az_failures, 0, 2, "availability-zone failures in a run")
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
