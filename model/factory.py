"""``make_model``: the entry point the ``isrcheck.models`` registry names ``classic``.

The command line builds its model options from this signature (keyword-only, typed, defaulted),
so every option here is a ``--flag``.
"""

from __future__ import annotations

from typing import Literal

from .config import ClassicConfig
from .generations import GENERATIONS
from .options import ACKS, PLACEMENT, READS, STOPS, TRUNCATION, UNCLEAN, ConsumerOptions, DurabilityOptions
from .replication import ReplicationModel

# The allowed values are declared once (``model.generations``, ``model.options``); the command line
# reads them from these Literal types.
Generation = Literal[tuple(GENERATIONS)]
Acks = Literal[ACKS]
Stops = Literal[STOPS]
Unclean = Literal[UNCLEAN]
Reads = Literal[READS]
Truncation = Literal[TRUNCATION]
Placement = Literal[PLACEMENT]


def make_model(
    *,
    generation: Generation = "kip320",
    replicas: int = 2,
    log_size: int = 2,
    max_records: int = 2,
    max_leader_epoch: int = 2,
    invariants: str = "all",
    acks: Acks = "none",
    min_insync_replicas: int = 1,
    max_crashes: int = 0,
    stops: Stops = "all",
    unclean_election: Unclean = "off",
    expand_before_epoch_start: bool = False,
    kip966_unclean_recovery: bool = False,
    consumer_reads: Reads = "off",
    truncation: Truncation = "on-become-follower",
    azs: int = 0,
    placement: Placement = "rack-aware",
    max_az_failures: int = 0,
) -> ReplicationModel:
    """The Kafka replication model (hachikuji/kafka-specification, plus options).

    generation: protocol generation: truncate-to-hw (pre-0.11), kip101, kip279, kip320-first-try
        (the rejected draft) or kip320.
    replicas, log_size, max_records, max_leader_epoch: the spec's constants Replicas, LogSize,
        MaxRecords, MaxLeaderEpoch.
    invariants: which properties the model builds: 'all' (default), 'default', or comma-separated
        names (see ``properties``). A run checks the ``default`` ones unless it names others.

    Durability options (``model.options.DurabilityOptions``; all off = the classic model, unchanged):
    acks: producer acks: none (no acknowledgement state), 0, 1 or all.
    min_insync_replicas: min.insync.replicas for acks=all writes (1..replicas).
    max_crashes: how many broker stops a run may have (0: brokers never stop).
    stops: which stops: controlled shutdown, crash, lossy (power failure losing the unflushed
        log suffix), crash+lossy, or all.
    unclean_election: unclean.leader.election.enable: off, any live replica, or highest-last-epoch.
    expand_before_epoch_start: bug K6: ISR expansion at the leader's stale HW (kip320 generations).
    kip966_unclean_recovery: a broker back from a lossy crash is not eligible until re-admitted.

    Consumer and rack options (``model.options.ConsumerOptions``; all off = unchanged):
    consumer_reads: off, leader (consumers fetch from the leader) or any (KIP-392 follower fetching).
    truncation: on-become-follower (KIP-320), on-fetch (diverging epoch in the fetch response,
        truncate first), on-fetch-hw-first (bug K13, KAFKA-14704: HW applied before truncating).
    azs: availability zones (0: no racks); placement: rack-aware or naive (rack-unaware,
        consecutive brokers, two per zone); max_az_failures: power failures of a whole zone.
    """
    config = ClassicConfig(
        replicas=replicas,
        log_size=log_size,
        max_records=max_records,
        max_leader_epoch=max_leader_epoch,
        generation=generation,
    )
    options = DurabilityOptions(
        acks=acks,
        min_insync_replicas=min_insync_replicas,
        max_crashes=max_crashes,
        stops=stops,
        unclean_election=unclean_election,
        expand_before_epoch_start=expand_before_epoch_start,
        kip966_unclean_recovery=kip966_unclean_recovery,
    )
    consumers = ConsumerOptions(
        consumer_reads=consumer_reads,
        truncation=truncation,
        azs=azs,
        placement=placement,
        max_az_failures=max_az_failures,
    )
    return ReplicationModel(config, options, consumers, invariants)
