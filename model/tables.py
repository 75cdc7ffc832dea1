"""Everything the steps, views and properties look up, built once per configuration.

``ModelTables`` is what ``properties/`` is handed (it never imports ``model``): the bounds
(``config``), the options, the generation's rules, the state layout (classic index arithmetic
``layout`` and the field table ``fields``), the log tables and the table of every action, and
(``native_predicate``) compiled forms of property predicates.
"""

from __future__ import annotations

from collections.abc import Callable

from .actions import ActionTable
from .config import ClassicConfig
from .encoding.fields import Fields
from .encoding.logs import LogTables
from .encoding.state import Layout
from .generations import GENERATIONS, Generation
from .options import ConsumerOptions, DurabilityOptions


class ModelTables:
    def __init__(self, config: ClassicConfig, options: DurabilityOptions | None = None,
                 consumers: ConsumerOptions | None = None, variant: Generation | None = None) -> None:
        self.config = config
        self.options = options = options or DurabilityOptions()
        self.consumers = consumers = consumers or ConsumerOptions()
        generation: Generation = variant or GENERATIONS[config.generation]
        if consumers.truncation != "on-become-follower":
            generation = generation.on_fetch(hw_first=consumers.truncation == "on-fetch-hw-first")
        self.generation = generation
        self.layout = Layout(config.replicas)
        self.fields = Fields(self.layout.length, config.replicas, config.log_size, options, consumers,
                             config.max_records)
        self.logs = LogTables(config)
        self.actions = ActionTable(config, options.unclean_election)
        self.az_of = consumers.az_of(config.replicas)

    @property
    def ext(self) -> Fields:
        """The field table's positions under their earlier name (``tables.ext.acked``)."""
        return self.fields

    def native_predicate(self, name: str, python: Callable[[tuple], bool]) -> Callable[[tuple], bool]:
        """The compiled form of property ``name``'s predicate where there is one (``isrcheck.model.native``),
        else ``python``: how ``properties/`` reaches compiled code without importing ``model``."""
        from .native.properties import native_predicate

        return native_predicate(self, name, python)
