"""The constants of a KRaft run (the spec's CONSTANTS), validated once.

Mapping from the spec's configuration: BrokerCount = ``brokers``, InitReplicationFactor =
``replication_factor`` (equal unless ``spare_brokers``); ``min_isr`` = MinISR; ``init_isr_size`` = InitIsrSize
(brokers 1..k start in the ISR, broker 1 leading; the others start fenced, out of sync, with stale
metadata); ``values`` = |Values|; ``lossy_shutdowns`` = UncleanShutdownLimit (KIP-966:
DataLossShutdownLimit); ``clean_shutdowns`` = CleanShutdownLimit (KIP-966: NoDataLossShutdownLimit,
whose shutdowns are either clean or crashes that lose no data but save no broker epoch); ``fencings`` =
FenceBrokerLimit; ``leader_shrinks`` = LeaderShrinkIsrLimit; ``avoid_last_replica_standing`` =
AvoidLastReplicaStanding (3.5 only). ``hw_over_maximal_isr`` False is bug K7: the leader counts
only its ISR for the high watermark while an expansion is in flight (before KIP-497).
``split_fetch``: the spec's three fetch actions (SendFetchRequest, ReceiveFetchRequest,
ReceiveFetchResponse) with the request/response in flight, instead of one atomic fetch.
``expand_at_leo_under_min_isr``: the fix of KAFKA-19996 (not in the specs): while the ISR is below
min ISR, a follower is added only once it has reached the leader's log end offset (the specs, and
Kafka before the fix, add it once it has reached the high watermark, which KIP-966 freezes there).
``reassignments`` = ReassignmentLimit (``PerformPartitionReassignment``, KIP-455); ``spare_brokers``:
brokers beyond the replication factor (BrokerCount - InitReplicationFactor), the brokers a
reassignment can add; ``brokers`` counts them (BrokerCount), ``replication_factor`` does not.
``racks``: broker b (0-based) is in rack b mod racks (0: racks not modelled; the specs have none);
``rack_aware``: a reassignment's target spreads over as many racks as it can (Kafka's rack-aware
assignment: no rack holds two of its replicas while a rack holds none), else any target (naive).
"""

from __future__ import annotations

from dataclasses import dataclass

from .generations import KRAFT_GENERATIONS, KraftGeneration

MAX_BROKERS = 4
MAX_VALUES = 3
MAX_PERTURBATIONS = 3


@dataclass(frozen=True)
class KraftConfig:
    generation: str = "kraft-kip966"
    brokers: int = 3
    min_isr: int = 2
    init_isr_size: int = 2
    values: int = 1
    lossy_shutdowns: int = 1
    clean_shutdowns: int = 0
    fencings: int = 1
    leader_shrinks: int = 0
    avoid_last_replica_standing: bool = False
    hw_over_maximal_isr: bool = True
    split_fetch: bool = False
    expand_at_leo_under_min_isr: bool = False
    reassignments: int = 0
    spare_brokers: int = 0
    racks: int = 0
    rack_aware: bool = True

    @property
    def replication_factor(self) -> int:
        """InitReplicationFactor: brokers 1..replication_factor host the partition at the start."""
        return self.brokers - self.spare_brokers

    @property
    def gen(self) -> KraftGeneration:
        return KRAFT_GENERATIONS[self.generation]

    def validate(self) -> None:
        """Refuse impossible constants with the fix in the message (the spec's ASSUMEs and more)."""
        if self.generation not in KRAFT_GENERATIONS:
            raise ValueError(f"generation={self.generation!r} is not a KRaft generation: choose one of "
                             f"{', '.join(KRAFT_GENERATIONS)}")
        for name in ("brokers", "min_isr", "init_isr_size", "values", "lossy_shutdowns", "clean_shutdowns",
                     "fencings", "leader_shrinks", "reassignments", "spare_brokers", "racks"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be an int, got {value!r}")
        if not 2 <= self.brokers <= MAX_BROKERS:
            spare = f" + spare_brokers={self.spare_brokers}" if self.spare_brokers else ""
            raise ValueError(f"replicas={self.brokers - self.spare_brokers}{spare} is out of range for a KRaft "
                             f"generation: use 2..{MAX_BROKERS} brokers in all")
        if not 0 <= self.spare_brokers <= self.brokers - 2:
            raise ValueError(f"spare_brokers={self.spare_brokers} is out of range: use 0..{MAX_BROKERS - 2} with "
                             f"at most {MAX_BROKERS} brokers in all (replicas + spare brokers)")
        rf = self.replication_factor
        if not 1 <= self.min_isr <= rf:
            raise ValueError(f"min_insync_replicas={self.min_isr} is out of range: use 1..replicas ({rf})")
        if not self.min_isr <= self.init_isr_size <= rf:
            raise ValueError(f"init_isr_size={self.init_isr_size} is out of range: the spec assumes "
                             f"min_insync_replicas ({self.min_isr}) <= init_isr_size <= replicas ({rf})")
        if not 1 <= self.values <= MAX_VALUES:
            raise ValueError(f"max_records={self.values} is out of range for a KRaft generation: use 1..{MAX_VALUES} "
                             "(the spec's Values: each is written once)")
        flags = {"lossy_shutdowns": "max_crashes", "clean_shutdowns": "max_crashes", "fencings": "max_fencings",
                 "leader_shrinks": "max_leader_shrinks", "reassignments": "max_reassignments"}
        for name, flag in flags.items():
            if not 0 <= getattr(self, name) <= MAX_PERTURBATIONS:
                raise ValueError(f"{flag}={getattr(self, name)} is out of range for a KRaft generation: use "
                                 f"0..{MAX_PERTURBATIONS} (each one multiplies the state space)")
        if not 0 <= self.racks <= MAX_BROKERS:
            raise ValueError(f"azs={self.racks} is out of range for a KRaft generation: use 0..{MAX_BROKERS} racks")
        if self.racks and not self.reassignments:
            raise ValueError(f"azs={self.racks}: racks matter to a KRaft run only where a reassignment places "
                             "replicas; add --max-reassignments 1 (or drop --azs)")
        if not self.rack_aware and not self.racks:
            raise ValueError("placement='naive' places replicas in racks: set azs >= 1")
        if self.avoid_last_replica_standing and not self.gen.isr_floor_one:
            raise ValueError("avoid_last_replica_standing applies to kraft-3.5 only (KIP-966 has no last replica "
                             "standing to avoid)")
