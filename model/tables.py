"""Everything the successor function looks up, built once per configuration."""

from __future__ import annotations

from .actions import ActionTable
from .config import ClassicConfig
from .logs import LogTables
from .state import Layout


class ModelTables:
    """Bundles the configuration, the state layout, the log tables and the action table."""

    def __init__(self, config: ClassicConfig) -> None:
        self.config = config
        self.layout = Layout(config.replicas)
        self.logs = LogTables(config)
        self.actions = ActionTable(
            config.replicas, config.log_size, config.max_records, config.max_leader_epoch
        )
