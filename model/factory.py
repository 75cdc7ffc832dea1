"""``make_model``: the entry point the ``isrcheck.models`` registry names ``classic``.

The command line builds its model options from this signature (keyword-only, typed, defaulted),
so every option here is a ``--flag``, and its help is this docstring's entry for it (one entry per
line, ``name: text``, continued on deeper-indented lines: ``isrcheck.explorer.registry.option_help``).

Two options have a default of their own per family, given as None here: ``min_insync_replicas``
(1 for the ZooKeeper-era generations, where it constrains only acks=all writes; 2 for KRaft, where
min ISR 1 leaves ELR empty) and ``max_fencings`` (KRaft only; 1, so that the controller can fence
a broker and elect another leader: with 0 a KRaft run with the defaults never changes leader and
ends vacuous, NewLeaderElected never reached).
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
    property_set: str = "all",
    acks: Acks = "none",
    min_insync_replicas: int | None = None,
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
    max_fencings: int | None = None,
    max_leader_shrinks: int = 0,
    avoid_last_replica_standing: bool = False,
    hw_over_maximal_isr: bool = True,
    split_fetch: bool = False,
    expand_at_leo_under_min_isr: bool = False,
    max_reassignments: int = 0,
    spare_brokers: int = 0,
) -> Any:
    """The Kafka replication model (hachikuji/kafka-specification, plus options).

    generation: protocol generation: truncate-to-hw (pre-0.11), kip101, kip279, kip320-first-try
        (the rejected draft) or kip320 (ZooKeeper era); kraft-3.5 or kraft-kip966 (the KRaft
        controller; KIP-966 Eligible Leader Replicas: docs/kraft.md).
    replicas: the spec's Replicas: how many brokers replicate the partition.
    log_size: the spec's LogSize: the longest log.
    max_records: the spec's MaxRecords: how many records producers write.
    max_leader_epoch: the spec's MaxLeaderEpoch: how many leader elections.
    property_set: which properties the model builds: all, default, or comma-separated names
        (isrcheck properties lists them); a run checks the default ones unless --invariant names
        others. Formerly --invariants.

    Durability options (``isrcheck.model.options.DurabilityOptions``; all off = the classic model, unchanged):
    acks: producer acks: none (no acknowledgement state), 0, 1 or all.
    min_insync_replicas: min.insync.replicas for acks=all writes (1..replicas); KRaft: MinISR.
        Default: 1, or 2 with a KRaft generation.
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
    azs: availability zones (0: no racks).
    placement: rack-aware or naive (rack-unaware, consecutive brokers, two per zone).
        KRaft: racks for a reassignment's targets (needs max_reassignments; docs/kraft.md).
    max_az_failures: power failures of a whole zone.

    KRaft options (``isrcheck.model.kraft``; the specs' constants; left out they change nothing):
    init_isr_size: brokers 1..k start in the ISR, the others fenced and out of sync (0: all).
    max_fencings: how many times the controller fences a broker that missed heartbeats.
        Default: 1 with a KRaft generation (a leader change is reachable); ZooKeeper era: none.
    max_leader_shrinks: how many AlterPartition requests may shrink the ISR (timed-out followers).
    avoid_last_replica_standing: kraft-3.5: no unclean shutdown of the ISR's last member.
    hw_over_maximal_isr: False is bug K7: the leader counts only its ISR for the HW while an
        expansion is in flight (KIP-497's maximal ISR off).
    split_fetch: a fetch as the spec's three steps with its request/response in flight, instead of
        one atomic step (slower; it checks the atomic fetch's abstraction, docs/kraft.md).
    expand_at_leo_under_min_isr: the fix of KAFKA-19996: while the ISR is below min ISR, a leader
        adds a follower only once it has reached the leader's log end, not the stale HW.
    max_reassignments: the spec's ReassignmentLimit: partition reassignments (KIP-455) a run may start.
    spare_brokers: brokers beyond the replicas (BrokerCount - InitReplicationFactor), which a
        reassignment can add.
    With a KRaft generation, replicas is the broker count, min_insync_replicas MinISR, max_records
    the number of values, max_crashes/stops the unclean (lossy) and clean (controlled) shutdowns.
    """
    options_given = {k: v for k, v in locals().items() if k not in ("generation", "property_set")}
    if generation not in GENERATIONS and generation not in KRAFT_GENERATIONS:  # both families' names
        raise ValueError(f"generation={generation!r} is unknown: choose one of "
                         f"{', '.join([*GENERATIONS, *KRAFT_GENERATIONS])}")
    if generation in KRAFT_GENERATIONS:
        from .kraft.factory import make_kraft_model

        return make_kraft_model(generation, property_set, **options_given)
    from .kraft.factory import refuse_kraft_options

    refuse_kraft_options(generation, options_given)
    min_insync_replicas = 1 if min_insync_replicas is None else min_insync_replicas
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
    return ReplicationModel(config, options, consumers, property_set)


# --invariants selected the properties the model builds, next to --invariant that chooses which a
# run checks: one letter apart, two ideas. The old name is refused with the new one
# (isrcheck.explorer.registry.refuse_renamed), never quietly mapped.
make_model.renamed_options = {"invariants": "property_set"}  # type: ignore[attr-defined]
make_model.rename_reasons = {  # type: ignore[attr-defined]
    "invariants": "it selects the properties the model builds; --invariant NAME still chooses which a run checks",
}


def family_defaults(options: dict[str, Any]) -> dict[str, Any]:
    """What the factory's None defaults stand for with these options (the family's own values,
    as make_model resolves them): the HTML page names the configuration a run had, not None."""
    from .kraft.factory import KRAFT_DEFAULTS

    generation = options.get("generation") or "kip320"
    if generation in KRAFT_GENERATIONS:
        replicas = options.get("replicas") or 2
        return {**KRAFT_DEFAULTS, "min_insync_replicas": min(KRAFT_DEFAULTS["min_insync_replicas"], replicas)}
    return {"min_insync_replicas": 1, "max_fencings": 0}


make_model.resolved_defaults = family_defaults  # type: ignore[attr-defined]
