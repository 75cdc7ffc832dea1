"""``make_model``: the entry point the ``isrcheck.models`` registry names ``classic``.

The command line builds its model options from this signature (keyword-only, typed, defaulted),
so every option here is a ``--flag``.
"""

from __future__ import annotations

from typing import Any, Literal

from .config import ClassicConfig
from .generations import GENERATIONS
from .kraft import KRAFT_GENERATIONS
from .options import ACKS, PLACEMENT, READS, STOPS, TRUNCATION, UNCLEAN, ConsumerOptions, DurabilityOptions
from .replication import ReplicationModel

# The allowed values are declared once (``isrcheck.model.generations``, ``isrcheck.model.options``); the command line
# reads them from these Literal types.
Generation = Literal[tuple(GENERATIONS) + tuple(KRAFT_GENERATIONS)]
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
    init_isr_size: int = 0,
    max_fencings: int = 0,
    max_leader_shrinks: int = 0,
    avoid_last_replica_standing: bool = False,
    hw_over_maximal_isr: bool = True,
    split_fetch: bool = False,
    expand_at_leo_under_min_isr: bool = False,
) -> Any:
    """The Kafka replication model (hachikuji/kafka-specification, plus options).

    generation: protocol generation: truncate-to-hw (pre-0.11), kip101, kip279, kip320-first-try
        (the rejected draft) or kip320 (ZooKeeper era); kraft-3.5 or kraft-kip966 (the KRaft
        controller; KIP-966 Eligible Leader Replicas: ``isrcheck.model.kraft``, docs/kraft.md).
    replicas, log_size, max_records, max_leader_epoch: the spec's constants Replicas, LogSize,
        MaxRecords, MaxLeaderEpoch.
    invariants: which properties the model builds: 'all' (default), 'default', or comma-separated
        names (see ``properties``). A run checks the ``default`` ones unless it names others.

    Durability options (``isrcheck.model.options.DurabilityOptions``; all off = the classic model, unchanged):
    acks: producer acks: none (no acknowledgement state), 0, 1 or all.
    min_insync_replicas: min.insync.replicas for acks=all writes (1..replicas).
    max_crashes: how many broker stops a run may have (0: brokers never stop).
    stops: which stops: controlled shutdown, crash, lossy (power failure losing the unflushed
        log suffix), crash+lossy, or all.
    unclean_election: unclean.leader.election.enable: off, any live replica, or highest-last-epoch.
    expand_before_epoch_start: bug K6: ISR expansion at the leader's stale HW (kip320 generations).
    kip966_unclean_recovery: a broker back from a lossy crash is not eligible until re-admitted.

    Consumer and rack options (``isrcheck.model.options.ConsumerOptions``; all off = unchanged):
    consumer_reads: off, leader (consumers fetch from the leader) or any (KIP-392 follower fetching).
    truncation: on-become-follower (KIP-320), on-fetch (diverging epoch in the fetch response,
        truncate first), on-fetch-hw-first (bug K13, KAFKA-14704: HW applied before truncating).
    azs: availability zones (0: no racks); placement: rack-aware or naive (rack-unaware,
        consecutive brokers, two per zone); max_az_failures: power failures of a whole zone.

    KRaft options (``isrcheck.model.kraft``; the specs' constants; left out they change nothing):
    init_isr_size: brokers 1..k start in the ISR, the others fenced and out of sync (0: all).
    max_fencings: how many times the controller fences a broker that missed heartbeats.
    max_leader_shrinks: how many AlterPartition requests may shrink the ISR (timed-out followers).
    avoid_last_replica_standing: kraft-3.5: no unclean shutdown of the ISR's last member.
    hw_over_maximal_isr: False is bug K7: the leader counts only its ISR for the HW while an
        expansion is in flight (KIP-497's maximal ISR off).
    split_fetch: a fetch as the spec's three steps with its request/response in flight, instead of
        one atomic step (slower; it checks the atomic fetch's abstraction, docs/kraft.md).
    expand_at_leo_under_min_isr: the fix of KAFKA-19996: while the ISR is below min ISR, a leader
        adds a follower only once it has reached the leader's log end, not the stale HW.
    With a KRaft generation, replicas is the broker count, min_insync_replicas MinISR, max_records
    the number of values, max_crashes/stops the unclean (lossy) and clean (controlled) shutdowns.
    """
    options_given = {k: v for k, v in locals().items() if k not in ("generation", "invariants")}
    if generation in KRAFT_GENERATIONS:
        from .kraft.factory import make_kraft_model

        return make_kraft_model(generation, invariants, **options_given)
    from .kraft.factory import refuse_kraft_options

    refuse_kraft_options(generation, options_given)
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
