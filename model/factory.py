"""``make_model``: the entry point the ``isrcheck.models`` registry names ``classic``.

The command line builds its model options from this signature (keyword-only, typed, defaulted),
so every option here is a ``--flag``.
"""

from __future__ import annotations

from typing import Literal

from .classic import ClassicModel
from .config import ClassicConfig

Generation = Literal["truncate-to-hw", "kip101", "kip279", "kip320-first-try", "kip320"]


def make_model(
    *,
    generation: Generation = "kip320",
    replicas: int = 2,
    log_size: int = 2,
    max_records: int = 2,
    max_leader_epoch: int = 2,
    invariants: str = "all",
) -> ClassicModel:
    """The classic Kafka replication model (hachikuji/kafka-specification).

    generation: protocol generation: truncate-to-hw (pre-0.11), kip101, kip279, kip320-first-try
        (the rejected draft) or kip320.
    replicas, log_size, max_records, max_leader_epoch: the spec's constants Replicas, LogSize,
        MaxRecords, MaxLeaderEpoch.
    invariants: which properties the model builds: 'all' (default), 'default', or comma-separated
        names (see ``properties``). A run checks the ``default`` ones unless it names others.
    """
    config = ClassicConfig(
        replicas=replicas,
        log_size=log_size,
        max_records=max_records,
        max_leader_epoch=max_leader_epoch,
        generation=generation,
    )
    return ClassicModel(config, invariants)
