"""The KRaft-era generations as data: which spec each reproduces and the rules where they differ.

Both generations have the same steps (``isrcheck.model.kraft.steps``); each step reads its rule from here:

- ``isr_floor_one``: Kafka 3.5's controller never shrinks the ISR below one member
  (``MaybeRemoveBrokerFromISR``): a fenced last member stays in the ISR, leaderless, and is elected
  again when it is unfenced ("last replica standing");
- ``elr``: KIP-966's Eligible Leader Replicas: members removed while the ISR is below
  min.insync.replicas join the ELR; election tries the ISR, then the unfenced ELR; the ISR may empty;
- ``hw_needs_min_isr``: KIP-966: the leader advances the high watermark only while its ISR has at
  least min.insync.replicas members (``CanAdvanceHwm``);
- ``broker_epoch_on_disk``: KIP-966: a clean shutdown writes the broker epoch to disk and the next
  registration sends it; a broker that registers with epoch 0 is *unclean* and leaves the ISR and
  the ELR (``ProcessUncleanBroker``), so it cannot be elected before it has caught up;
- ``lossy_shutdown`` / ``clean_shutdown``: the spec's names of the two shutdown actions.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KraftGeneration:
    name: str
    module: str  # the TLA+ module (Vanlightly/kafka-tlaplus, kafka_data_replication/kraft/...)
    isr_floor_one: bool
    elr: bool
    hw_needs_min_isr: bool
    broker_epoch_on_disk: bool
    lossy_shutdown: str
    clean_shutdown: str
    # A variant's own forms of steps (isrcheck.model.kraft.variants), by name: each replaces the
    # described step of the same TLA+ action (described.steps_of); the built-in generations have none.
    forms: tuple[str, ...] = ()


KRAFT_GENERATIONS: dict[str, KraftGeneration] = {
    g.name: g
    for g in (
        # Kafka 3.5 with the KRaft controller (v3.5/kafka_replication_v3_5.tla).
        KraftGeneration("kraft-3.5", "kafka_replication_v3_5", isr_floor_one=True, elr=False,
                        hw_needs_min_isr=False, broker_epoch_on_disk=False,
                        lossy_shutdown="UncleanShutdown", clean_shutdown="CleanShutdown"),
        # KIP-966 Eligible Leader Replicas, Kafka 4.x (kip-966/kafka_replication_kip_966.tla).
        KraftGeneration("kraft-kip966", "kafka_replication_kip_966", isr_floor_one=False, elr=True,
                        hw_needs_min_isr=True, broker_epoch_on_disk=True,
                        lossy_shutdown="DataLossShutdown", clean_shutdown="NoDataLossShutdown"),
    )
}
