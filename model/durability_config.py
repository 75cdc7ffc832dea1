"""The durability options of the replication model, validated up front, and where their ghost and
failure state lives in a state tuple.

Every option defaults to the classic behaviour (``DurabilityOptions().is_classic``): with all of
them off, ``make_model`` returns the unchanged ``ClassicModel``, so its states, counts and speed are
exactly those of hachikuji/kafka-specification. Each option, when on, names the Kafka mechanism it
adds (see ``model.durability`` for the steps).
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import ClassicConfig

ACKS = ("none", "0", "1", "all")
STOPS = ("all", "controlled", "crash", "lossy", "crash+lossy")
UNCLEAN = ("off", "any", "highest-last-epoch")
MAX_CRASHES = 4


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
        it has caught up and been re-admitted (Eligible Leader Replicas are not modelled: the
        partition stays offline instead).
    """

    acks: str = "none"
    min_insync_replicas: int = 1
    max_crashes: int = 0
    stops: str = "all"
    unclean_election: str = "off"
    expand_before_epoch_start: bool = False
    kip966_unclean_recovery: bool = False

    def validate(self, config: ClassicConfig, *, az_failures: int = 0) -> None:
        """``az_failures``: availability-zone failures the consumer/rack options add
        (``model.consumers_config``); they are lossy stops too, so KIP-966's rule applies to them."""
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
        if self.expand_before_epoch_start and config.generation not in ("kip320", "kip320-first-try"):
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

    @property
    def has_extension(self) -> bool:
        """Whether states carry fields beyond the classic layout."""
        return self.acks != "none" or self.max_crashes > 0

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


class ExtLayout:
    """Indices of the fields appended after the classic layout (``model.state``), present only
    when their option is on:

    ``DEAD``     bit mask of stopped brokers            (max_crashes > 0)
    ``CRASHES``  stops so far, bounded by max_crashes   (max_crashes > 0)
    ``FLUSHED``  n fields: each replica's flushed offset (the recovery point) (lossy stops)
    ``ACKED``    bit mask of acknowledged record ids    (acks != "none")
    ``SERVED``   log_size fields: what consumers were served at each offset (``model.consumers``)
    ``AZ_FAILED`` availability-zone failures so far      (max_az_failures > 0)

    ``consumers`` (a ``model.consumers_config.ConsumerOptions``) adds the last two, and with AZ
    failures the stop fields (an AZ failure is a lossy stop of every broker in the zone).
    """

    def __init__(self, start: int, n: int, options: DurabilityOptions, consumers=None, log_size: int = 0) -> None:
        i = start
        self.start = start
        self.dead = self.crashes = self.flushed = self.acked = self.served = self.az_failed = -1
        self.log_size = log_size
        az = consumers is not None and consumers.max_az_failures > 0
        if options.max_crashes or az:
            self.dead, self.crashes = i, i + 1
            i += 2
        if "lossy" in options.crash_kinds or az:
            self.flushed = i
            i += n
        if options.acks != "none":
            self.acked = i
            i += 1
        if consumers is not None and consumers.consumer_reads != "off":
            self.served = i
            i += log_size
        if az:
            self.az_failed = i
            i += 1
        self.length = i

    def initial(self, n: int) -> tuple:
        fields: list[int] = []
        if self.dead >= 0:
            fields += [0, 0]
        if self.flushed >= 0:
            fields += [0] * n
        if self.acked >= 0:
            fields.append(0)
        if self.served >= 0:
            fields += [0] * self.log_size
        if self.az_failed >= 0:
            fields.append(0)
        return tuple(fields)
