"""``KraftModel``: the KRaft-era generations of the replication model, for ``isrcheck.explorer.check``.

Builds the initial state of the spec's ``Init`` (an established cluster: broker 1 leads at leader
epoch 1; brokers 1..init_isr_size form the ISR; the others are fenced, out of sync, with stale
metadata of partition epoch 1), hands out the steps' successors, the properties
(``isrcheck.properties.kraft``), a named view of each state for traces and ITF, operator signals, and
the canonical form of a state under broker symmetry (``isrcheck.model.kraft.symmetry``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.contract import Property
from isrcheck.properties import kraft as kraft_properties

from . import fields
from .config import KraftConfig
from .controller import Controller
from .fairness import action_family, fairness_table
from .fields import (
    ALTER_PARTITION,
    BLOCK,
    BROKER_FIELDS,
    C_UNFENCED,
    FOLLOWER,
    GLOBAL_FIELDS,
    LEADER,
    LOG,
    MD_LEADER,
    METADATA_LOG,
    NIL,
    NO_FLOOR,
    NO_ROLE,
    R_ELR,
    R_ISR,
    R_LEADER,
    R_REPLICAS,
    RUNNING,
    STATUS,
    Layout,
)
from .picture import picture as draw
from .read import KraftState
from .steps import KraftSteps
from .swimlane import event as swimlane_event
from .symmetry import BrokerSymmetry


@dataclass(frozen=True)
class KraftTables:
    """What the properties read (``isrcheck.properties.kraft``): the constants, the layout, the field offsets."""

    config: KraftConfig
    layout: Layout
    fields: Any


class KraftModel:
    def __init__(self, config: KraftConfig, invariants: str = "all") -> None:
        config.validate()
        self.config = config
        self.generation = config.generation
        self.invariants = invariants
        self.layout = Layout(config.brokers)
        self._steps = KraftSteps(config, self.layout)
        self.successors = self._steps.successors
        self.tables = KraftTables(config, self.layout, fields)
        self._properties = tuple(kraft_properties.build(self.tables, invariants))
        self._symmetry = BrokerSymmetry(self.layout, config.racks)

    def __repr__(self) -> str:
        c = self.config
        return (f"KraftModel({c.generation}, brokers={c.brokers}, min_isr={c.min_isr}, init_isr={c.init_isr_size}, "
                f"values={c.values}, lossy={c.lossy_shutdowns}, clean={c.clean_shutdowns}, fencings={c.fencings}, "
                f"shrinks={c.leader_shrinks}" + (", avoid-LRS" if c.avoid_last_replica_standing else "")
                + ("" if c.hw_over_maximal_isr else ", HW over the ISR (K7)")
                + (", expansion at the LEO under min ISR" if c.expand_at_leo_under_min_isr else "")
                + (f", reassignments={c.reassignments}" if c.reassignments else "")
                + (f", spare={c.spare_brokers}" if c.spare_brokers else "") + ")")

    def __reduce__(self):
        return (KraftModel, (self.config, self.invariants))

    # -- the contract ---------------------------------------------------------------------------------

    def init_states(self) -> Sequence[tuple]:
        c, lay = self.config, self.layout
        isr = (1 << c.init_isr_size) - 1
        replicas = (1 << c.replication_factor) - 1
        partition_epoch = 1 if c.init_isr_size == c.replication_factor else 2
        ctl = Controller(c, lay)
        record = ctl.record(0, 1, partition_epoch, isr, 0, 0, replicas)
        s: list[Any] = [0] * lay.length
        for b in lay.brokers:
            o = lay.base[b]
            in_sync = bool(isr >> b & 1)
            if not replicas >> b & 1:  # a spare broker: unfenced, up to date, no partition metadata
                s[o:o + BLOCK] = (
                    RUNNING, b + 1, 1, NIL, NO_ROLE, 0, 0, 0, NIL, 0, 0, (), 0, NIL, lay.blank_followers, 0,
                    NO_FLOOR, 1, b + 1, lay.no_fetches, (), 0,
                )
                continue
            s[o:o + BLOCK] = (
                RUNNING, b + 1, 1 if in_sync else 0, NIL if b == 0 else 0, LEADER if b == 0 else FOLLOWER,
                replicas, isr if in_sync else replicas, isr if in_sync else replicas, 0, 1,
                partition_epoch if in_sync else 1, (), 0, 0 if b == 0 else NIL, lay.blank_followers, 0, NO_FLOOR,
                1 if in_sync else 0, b + 1, lay.no_fetches, (), 0,
            )
        g = lay.g
        s[g:] = ((record,), c.brokers, 0, 0, 0, 0, 0, 0, 0, 0, (), 0)
        return [tuple(s)]

    def property_hint(self, name: str) -> str | None:
        """Why this configuration has no property ``name`` and what adds it (``isrcheck.model.property_hints``)."""
        from ..property_hints import kraft_hint

        return kraft_hint(name, self)

    def properties(self) -> Sequence[Property]:
        return self._properties

    def fairness(self) -> dict[str, str]:
        """Weak fairness per broker of the specs' ``Liveness`` steps (``isrcheck.model.kraft.fairness``)."""
        return fairness_table(self.config.brokers)

    def action_family(self, action: Any) -> str:
        """The step and the broker taking it: ``Fetch b2``."""
        return action_family(action)

    def canonical(self, state: tuple) -> tuple:
        """The least relabelling of ``state`` over every permutation of the brokers (``--symmetry``;
        ``isrcheck.model.kraft.symmetry`` says why that is sound)."""
        return self._symmetry.canonical(state)

    # -- what users read --------------------------------------------------------------------------------

    def state_view(self, s: tuple) -> dict[str, Any]:
        """Every field under its spec name, as its row shows it (``isrcheck.model.kraft.fields``); a broker's
        fields carry its id (``partitionData.log.2``)."""
        lay, t = self.layout, self.tables
        view: dict[str, Any] = {}
        for b in lay.brokers:
            o = lay.base[b]
            for i, f in enumerate(BROKER_FIELDS):
                view[f"{f.view}.{b + 1}"] = f.show(t, s, o + i)
        for i, f in enumerate(GLOBAL_FIELDS):
            if fields.shown(f, self.config):
                view[f.view] = f.show(t, s, lay.g + i)
        return view

    def read(self, s: tuple) -> KraftState:
        """The state read by name (``isrcheck.model.kraft.read``): what users' own properties receive."""
        return KraftState(self.tables, s)
    def picture(self, s: tuple, detail: str = "") -> dict[str, Any]:
        """The state drawn as the classic family's is (``isrcheck.model.kraft.picture``), for the HTML report."""
        return draw(self.state_view(s), detail, split_fetch=self.config.split_fetch)

    def swimlanes(self) -> list[str]:
        """The lanes of the report's space-time view: each broker, then the controller."""
        return [f"broker {b + 1}" for b in self.layout.brokers] + ["controller"]

    def swimlane(self, action: Any, before: tuple, after: tuple) -> dict[str, Any]:
        """One step as an event of the space-time view (``isrcheck.model.kraft.swimlane``)."""
        return swimlane_event(action, self.state_view(before), self.state_view(after))

    def field_docs(self) -> dict[str, str]:
        """One line per view key saying what it means (``isrcheck.model.kraft.fields``), for traces."""
        return dict(fields.FIELD_DOCS)

    def signals(self, s: tuple) -> dict[str, Any]:
        """What an operator sees: the controller's leader (``offline`` without one), ISR and ELR sizes
        against min.insync.replicas, fenced and stopped brokers, pending AlterPartition."""
        lay = self.layout
        cur = s[lay.g + METADATA_LOG][-1]
        leader = cur[R_LEADER]
        isr_size = lay.size[cur[R_ISR]]
        replicas = cur[R_REPLICAS]
        out: dict[str, Any] = {"leader": None if leader == NIL else leader + 1, "offline": leader == NIL,
                               "ISR": f"{isr_size}/{lay.size[replicas]}",
                               "under-min-isr": isr_size < self.config.min_isr}
        if self.config.gen.elr:
            out["ELR"] = lay.ids(cur[R_ELR])
        out["fenced"] = [b + 1 for b in lay.brokers if not s[lay.base[b] + C_UNFENCED]]
        out["stopped"] = [b + 1 for b in lay.brokers if s[lay.base[b] + STATUS] != RUNNING]
        out["alter-partition"] = any(s[lay.base[b] + ALTER_PARTITION] for b in lay.brokers)
        if leader != NIL and s[lay.base[leader] + STATUS] == RUNNING and s[lay.base[leader] + MD_LEADER] == leader:
            lead_end = len(s[lay.base[leader] + LOG])
            gaps = {f"r{b + 1}": lead_end - len(s[lay.base[b] + LOG]) for b in lay.members[replicas] if b != leader}
            out["lag"] = {r: gap for r, gap in gaps.items() if gap >= 0}
            ahead = {r: -gap for r, gap in gaps.items() if gap < 0}  # longer than the leader: will truncate
            if ahead:
                out["ahead"] = ahead
        return out
