"""The KRaft generations behind ``make_model``: the model's options mapped onto the specs' constants.

``make_model(generation="kraft-3.5" | "kraft-kip966", ...)`` lands here. Options shared with the
ZooKeeper-era generations keep their meaning: ``replicas`` (BrokerCount = InitReplicationFactor),
``min_insync_replicas`` (MinISR), ``max_records`` (the number of Values), ``max_crashes`` with
``stops`` (lossy: UncleanShutdownLimit / DataLossShutdownLimit; controlled: CleanShutdownLimit /
NoDataLossShutdownLimit; all: both, each up to ``max_crashes``, as the specs count them apart).
The KRaft-only options are the specs' other constants. An option that means nothing to the chosen
family is refused with a message, never silently ignored.
"""

from __future__ import annotations

from typing import Any

from .config import KraftConfig
from .generations import KRAFT_GENERATIONS
from .model import KraftModel

# Options of the ZooKeeper-era generations and the value that leaves them out.
ZOOKEEPER_ONLY = {"log_size": 2, "max_leader_epoch": 2, "unclean_election": "off", "expand_before_epoch_start": False,
                  "kip966_unclean_recovery": False, "consumer_reads": "off", "truncation": "on-become-follower",
                  "max_az_failures": 0}
# The KRaft-only options and the value that leaves them out.
KRAFT_ONLY = {"init_isr_size": 0, "max_fencings": 0, "max_leader_shrinks": 0, "avoid_last_replica_standing": False,
              "hw_over_maximal_isr": True, "split_fetch": False, "expand_at_leo_under_min_isr": False,
              "max_reassignments": 0, "spare_brokers": 0}
_HINTS = {"kip966_unclean_recovery": " (KIP-966's rule is part of --generation kraft-kip966)",
          "unclean_election": " (the KRaft specs model clean election only)"}


def refuse_kraft_options(generation: str, options: dict[str, Any]) -> None:
    """For a ZooKeeper-era generation: the KRaft-only options must be left out."""
    used = [k for k, off in KRAFT_ONLY.items() if options.get(k, off) not in (off, None)]  # None: the default
    if used:
        raise ValueError(f"{', '.join(used)} appl{'ies' if len(used) == 1 else 'y'} to the KRaft generations "
                         f"({', '.join(KRAFT_GENERATIONS)}) only; drop {'it' if len(used) == 1 else 'them'} for "
                         f"generation {generation}")


# The family's own defaults where the factory's None leaves the choice to it: min ISR 2 (with 1 the
# ELR stays empty: ElrNonEmpty is never reached) and one fencing (with none, no leader ever changes:
# NewLeaderElected is never reached and the run proves nothing). Both were vacuous defaults before.
KRAFT_DEFAULTS = {"min_insync_replicas": 2, "max_fencings": 1}


def _rack_aware(placement: str) -> bool:
    if placement not in ("rack-aware", "naive"):
        raise ValueError(f"placement={placement!r} is unknown: choose rack-aware or naive")
    return placement == "rack-aware"


def make_kraft_model(generation: str, invariants: str = "all", **options: Any) -> KraftModel:
    defaults = {**KRAFT_DEFAULTS, "min_insync_replicas": min(2, options.get("replicas", 2))}
    options = {**options, **{k: v for k, v in defaults.items() if options.get(k) is None}}
    used = [k for k, off in ZOOKEEPER_ONLY.items() if options.get(k, off) != off]
    if used:
        raise ValueError(f"{used[0]} applies to the ZooKeeper-era generations only{_HINTS.get(used[0], '')}; "
                         f"drop it for generation {generation}")
    if options.get("acks", "none") not in ("none", "all"):
        raise ValueError(f"acks={options['acks']!r}: the KRaft specs model acks=all producers only; "
                         "pass acks 'all' or leave it out")
    crashes = options.get("max_crashes", 0)
    stops = options.get("stops", "all")
    if stops not in ("all", "lossy", "controlled"):
        raise ValueError(f"stops={stops!r}: the KRaft generations have lossy (unclean) and controlled (clean) "
                         "shutdowns; choose lossy, controlled or all")
    if stops != "all" and not crashes:
        raise ValueError(f"stops={stops!r} has no effect with max_crashes=0: set max_crashes >= 1")
    replicas = options.get("replicas", 2)
    init_isr = options.get("init_isr_size", 0) or replicas
    spare = options.get("spare_brokers", 0)
    config = KraftConfig(
        generation=generation,
        brokers=replicas + spare if isinstance(spare, int) else replicas,
        spare_brokers=spare,
        reassignments=options.get("max_reassignments", 0),
        racks=options.get("azs", 0),
        rack_aware=_rack_aware(options.get("placement", "rack-aware")),
        min_isr=options.get("min_insync_replicas", 1),
        init_isr_size=init_isr,
        values=options.get("max_records", 2),
        lossy_shutdowns=crashes if stops in ("all", "lossy") else 0,
        clean_shutdowns=crashes if stops in ("all", "controlled") else 0,
        fencings=options.get("max_fencings", 0),
        leader_shrinks=options.get("max_leader_shrinks", 0),
        avoid_last_replica_standing=options.get("avoid_last_replica_standing", False),
        hw_over_maximal_isr=options.get("hw_over_maximal_isr", True),
        split_fetch=options.get("split_fetch", False),
        expand_at_leo_under_min_isr=options.get("expand_at_leo_under_min_isr", False),
    )
    return KraftModel(config, invariants)
