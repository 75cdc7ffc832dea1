"""The Kafka replication model: hachikuji/kafka-specification reproduced in Python, plus options.

What is modelled: one partition replicated on ``replicas`` brokers; each replica's log, high
watermark and cached leader/epoch/ISR; the controller's quorum state (ZooKeeper) and the set of
LeaderAndIsr requests it has sent; producer writes to presumed leaders; ISR shrink and expansion
by the true leader; high-watermark advancement; follower fetching and truncation as it was in each
protocol generation (``isrcheck.model.generations``). With every option off, counts of distinct states and
BFS depths equal TLC's on the same constants, because the state encoding
(``isrcheck.model.encoding``) is one-to-one with the spec's reachable states and every step has the spec's
enabling condition.

The options (``isrcheck.model.options``) add, each when switched on: producer acks and
``min.insync.replicas``; broker stops (controlled shutdown, crash, power failure losing the
unflushed log suffix) and restarts, log flushes, unclean leader election, KIP-966's rule for
brokers back from an unclean shutdown, bug K6; consumers, KIP-392 follower fetching, truncation
on fetch (and bug K13), racks and availability-zone failures. An option adds rows to the field
table (``isrcheck.model.encoding.fields``) and steps to ``Next`` (``isrcheck.model.steps``), and changes the steps
it concerns when they are built.

What is abstracted away: message passing for fetches (each fetch is atomic), ZooKeeper
propagation delays, controller failover. The bounds ``log_size``, ``max_records`` and
``max_leader_epoch`` (and ``max_crashes``, ``max_az_failures``) make the state space finite.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from typing import Any

import isrcheck.properties as catalogue
from isrcheck.explorer.contract import Property

from .config import ClassicConfig
from .encoding.fields import field_docs
from .encoding.packed import packing
from .encoding.picture import picture
from .encoding.signals import Signals
from .encoding.swimlane import event as swimlane_event
from .encoding.swimlane import lanes as swimlane_lanes
from .encoding.symmetry import Symmetry
from .encoding.view import StateView
from .fairness import action_family as step_family
from .fairness import fairness_table
from .generations import Generation
from .native.packing import native_packing
from .options import ConsumerOptions, DurabilityOptions
from .read import ClassicState
from .steps import successor_function
from .tables import ModelTables


class ReplicationModel:
    """A model for ``isrcheck.explorer.check``: ``init_states``, ``successors``, ``properties``,
    ``canonical`` (replica symmetry), ``state_view`` and ``signals``."""

    def __init__(self, config: ClassicConfig, options: DurabilityOptions | None = None,
                 consumers: ConsumerOptions | None = None, invariants: str = "all",
                 generation: Generation | None = None) -> None:
        self.config = config
        self.options = options = options or DurabilityOptions()
        self.consumers = consumers = consumers or ConsumerOptions()
        consumers.validate(config)
        options.validate(config, az_failures=consumers.max_az_failures)
        self.invariants = invariants
        self.tables = ModelTables(config, options, consumers, generation)  # generation: a variant's (model/variants.py)
        self.layout = self.tables.layout
        self.fields = self.tables.fields
        self.generation = self.tables.generation
        names = catalogue.parse_selection(invariants, self.tables)
        self._properties = tuple(catalogue.build(self.tables, names))
        self._symmetry = Symmetry(self.tables, perms=self._symmetries())
        self._view = StateView(self.tables)
        self.successors = successor_function(self.tables)
        # isrcheck.explorer.contract.packing: compact exact keys (in C when isrcheck.model.native was built)
        self.pack, self.unpack = native_packing(self.tables, *packing(self.tables))

    @property
    def ext(self) -> Any:
        """The option fields' positions (``isrcheck.model.encoding.fields.Fields``), under their earlier name."""
        return self.fields

    def __repr__(self) -> str:
        parts = "; ".join(p for p in (self.config.describe(), self.options.describe(), self.consumers.describe()) if p)
        return f"ReplicationModel({parts})"

    def __reduce__(self):
        # Tables and closures are rebuilt from the configuration, so pickling (Spark) stays cheap.
        return (ReplicationModel, (self.config, self.options, self.consumers, self.invariants))

    def _symmetries(self) -> list[tuple[int, ...]]:
        """Every relabelling of replicas, or with racks those that map zones onto zones."""
        perms = list(permutations(range(self.config.replicas)))
        az_of = self.tables.az_of
        return [p for p in perms if _keeps_zones(p, az_of)] if az_of else perms

    def init_states(self) -> list[tuple]:
        return [self.layout.initial() + self.fields.initial()]

    def properties(self) -> Sequence[Property]:
        return self._properties

    def canonical(self, state: tuple) -> tuple:
        """The lexicographically least relabelling of ``state`` over the replica symmetries."""
        return self._symmetry.canonical(state)

    def state_view(self, state: tuple) -> dict[str, Any]:
        """The state as the spec's named variables, JSON-friendly (replica ids 1..n)."""
        return self._view.view(state)

    def read(self, state: tuple) -> ClassicState:
        """The state read by name (``isrcheck.model.read``): what users' own properties receive."""
        return ClassicState(self.tables, state)
    def field_docs(self) -> dict[str, str]:
        """One line per view key saying what it means (``isrcheck.model.encoding.fields``), for traces."""
        return field_docs()

    def picture(self, state: tuple, detail: str = "") -> dict[str, Any]:
        """The state drawn as Kafka's diagrams draw it (``isrcheck.model.encoding.picture``), for the HTML report."""
        return picture(self.state_view(state), detail)

    def property_hint(self, name: str) -> str | None:
        """Why this configuration has no property ``name`` and which option adds it
        (``isrcheck.model.property_hints``), for the refusal of an unknown property."""
        from .property_hints import classic_hint

        return classic_hint(name, self)
    def swimlanes(self) -> list[str]:
        """The lanes of the report's space-time view: each replica, then the controller."""
        return swimlane_lanes(self.config.replicas)

    def swimlane(self, action: Any, before: tuple, after: tuple) -> dict[str, Any]:
        """One step as an event of the space-time view (``isrcheck.model.encoding.swimlane``)."""
        return swimlane_event(action, self.state_view(before), self.state_view(after))

    def fairness(self) -> dict[str, str]:
        """Weak fairness of the steps Kafka takes on its own (``isrcheck.model.fairness``), for liveness."""
        return fairness_table(self.config.replicas)

    def action_family(self, action: Any) -> str:
        """The step and, for a broker's step, the broker: ``FollowerReplicate r2`` (``isrcheck.model.fairness``)."""
        return step_family(action)

    def signals(self, state: tuple) -> dict[str, Any]:
        """Operator signals (``isrcheck.model.encoding.signals``): leader, ISR size, under-replication,
        follower lag, stopped brokers. Built on first use: a checking run never calls it, only
        trace renderers do."""
        fn = self.__dict__.get("_signals")
        if fn is None:
            fn = self._signals = Signals(self.tables)
        return fn(state)


def _keeps_zones(perm: tuple[int, ...], az_of: tuple[int, ...]) -> bool:
    """Whether relabelling by ``perm`` maps every zone's replicas onto one zone's replicas (zones are
    interchangeable: an AZ failure may hit any of them)."""
    image: dict[int, int] = {}
    for old, new in enumerate(perm):
        if image.setdefault(az_of[old], az_of[new]) != az_of[new]:
            return False
    return len(set(image.values())) == len(image)
