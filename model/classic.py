"""The classic Kafka replication model: hachikuji/kafka-specification reproduced in Python.

What is modelled: one partition replicated on ``replicas`` brokers; each replica's log, high
watermark and cached leader/epoch/ISR; the controller's quorum state (ZooKeeper) and the set of
LeaderAndIsr requests it has sent; producer writes to presumed leaders; ISR shrink and expansion
by the true leader; high-watermark advancement; follower fetching and truncation as it was in each
protocol generation (``model.generations``). Counts of distinct states and BFS depths equal TLC's on
the same constants, because the state encoding (``model.state``) is one-to-one with the spec's
reachable states and every step has the spec's enabling condition.

What is abstracted away: broker crashes and restarts as events (a replica removed from the ISR
may stay a zombie that keeps fetching), message passing for fetches (each fetch is atomic),
ZooKeeper propagation delays, controller failover, producer acks, unclean leader election. The
bounds ``log_size``, ``max_records`` and ``max_leader_epoch`` make the state space finite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.contract import Property

from .config import ClassicConfig
from .generations import STEPS
from .picture import picture
from .signals import Signals
from .symmetry import Symmetry
from .tables import ModelTables
from .view import StateView


class ClassicModel:
    """A model for ``explorer.check``: ``init_states``, ``successors``, ``properties``,
    ``canonical`` (replica symmetry) and ``state_view``."""

    def __init__(self, config: ClassicConfig, invariants: str = "all") -> None:
        import properties as catalogue  # the named properties of this model live in properties/

        self.config = config
        self.invariants = invariants
        names = catalogue.parse_selection(invariants)
        self.tables = ModelTables(config)
        self.layout = self.tables.layout
        self._steps = tuple(STEPS[config.generation](self.tables))
        self._properties = tuple(catalogue.build(self.tables, names))
        self._symmetry = Symmetry(self.tables)
        self._view = StateView(self.tables)
        self.successors = self._build_successors()

    def __repr__(self) -> str:
        return f"ClassicModel({self.config.describe()})"

    def __reduce__(self):
        # Tables and closures are rebuilt from the configuration, so pickling (Spark) stays cheap.
        return (ClassicModel, (self.config, self.invariants))

    def _build_successors(self):
        steps = self._steps

        def successors(state: tuple) -> list[tuple[Any, tuple]]:
            """Every (action, next state) of ``state``, in the order of the spec's ``Next``."""
            out: list[tuple[Any, tuple]] = []
            for step in steps:
                step(state, out)
            return out

        return successors

    def init_states(self) -> list[tuple]:
        return [self.layout.initial()]

    def properties(self) -> Sequence[Property]:
        return self._properties

    def canonical(self, state: tuple) -> tuple:
        """The lexicographically least relabelling of ``state`` over all replica permutations."""
        return self._symmetry.canonical(state)

    def state_view(self, state: tuple) -> dict[str, Any]:
        """The state as the spec's named variables, JSON-friendly (replica ids 1..n)."""
        return self._view.view(state)

    def picture(self, state: tuple, detail: str = "") -> dict[str, Any]:
        """The state drawn as Kafka's diagrams draw it (``model.picture``), for the HTML trace report."""
        return picture(self.state_view(state), detail)

    def signals(self, state: tuple) -> dict[str, Any]:
        """Operator signals (``model.signals``): leader, ISR size, under-replication, follower lag.
        Built on first use: a checking run never calls it, only trace renderers do."""
        fn = self.__dict__.get("_signals")
        if fn is None:
            fn = self._signals = Signals(self.tables)
        return fn(state)
