"""The classic model plus what users are promised: producer acks and ``min.insync.replicas``,
brokers that stop and restart (controlled shutdown, crash, crash losing the unflushed log suffix),
unclean leader election, and the K6 expansion bug.

``DurabilityModel`` runs the classic generation's steps unchanged and post-processes each
successor (one table lookup per action):

- a step of a stopped broker is dropped (a stopped broker elects nothing, adopts no request,
  appends, fetches or advances no HW; ``ControllerShrinkIsr`` of a stopped broker is the
  controller's failure detection and stays);
- acks: ``LeaderWrite`` is the produce request reaching the leader (``Partition.appendRecordsToLeader``).
  With acks="1" the record is acknowledged at once; with acks="all" the write is refused while the
  leader's cached ISR has fewer than ``min_insync_replicas`` members (NotEnoughReplicasException),
  and ``LeaderIncHighWatermark`` acknowledges the record the HW passes when the ISR still has enough
  members (``Partition.checkEnoughReplicasReachOffset``; otherwise NotEnoughReplicasAfterAppend);
- a truncation lowers the replica's flushed offset with its log end (the recovery point never
  exceeds the log end).

Then it adds the steps of ``model.durability_steps``. Ghost and failure state is appended to the
classic tuple (``model.durability_config.ExtLayout``), so classic properties read the same indices.

Over-approximations, on purpose: acks=all acknowledges every record a presumed leader's HW passes
(a produce request that Kafka would have failed at a leadership change is counted as acknowledged:
such a record was below the HW, so consumers could have read it, and losing it is a loss either way).
"""

from __future__ import annotations

from typing import Any

from . import durability_steps as steps
from .actions import LeaderIncHighWatermark, LeaderWrite
from .classic import ClassicModel
from .config import ClassicConfig
from .durability_config import DurabilityOptions, ExtLayout
from .generations import STEPS
from .state import ISR, LEADER
from .symmetry import Symmetry
from .tables import ModelTables

PLAIN, WRITE, INC_HW = 0, 1, 2


# Which field of each classic action names the broker that acts (and must be running).
# ``ControllerShrinkIsr`` has none: removing a stopped broker is the controller's failure detection.
ACTOR_FIELD = {
    "ControllerElectLeader": "leader",
    "BecomeLeader": "replica",
    "LeaderWrite": "leader",
    "LeaderExpandIsr": "leader",
    "LeaderShrinkIsr": "leader",
    "LeaderIncHighWatermark": "leader",
    "BecomeFollowerAndTruncate": "replica",
    "BecomeFollower": "replica",
    "FollowerReplicate": "follower",
    "FollowerTruncate": "follower",
}


def _actors(action: Any) -> int:
    """The replica (internal index) whose liveness a classic action needs, or -1."""
    field = ACTOR_FIELD.get(type(action).__name__)
    return -1 if field is None else getattr(action, field) - 1


def _walk(table: Any):
    if isinstance(table, list):
        for item in table:
            yield from _walk(item)
    else:
        yield table


class DurabilityTables(ModelTables):
    """``ModelTables`` plus the durability options and the extension layout (``ext``)."""

    def __init__(self, config: ClassicConfig, options: DurabilityOptions, consumers=None) -> None:
        super().__init__(config)
        self.options = options
        self.consumers = consumers
        self.ext = ExtLayout(self.layout.length, self.layout.n, options, consumers, config.log_size)


def _expand_steps(t: ModelTables, options: DurabilityOptions) -> list:
    """The generation's steps, with the K6 variant of ISR expansion when asked for."""
    built = list(STEPS[t.config.generation](t))
    if options.expand_before_epoch_start:
        from . import kip320, kip320_first_try

        index = 3  # _shared (3 steps) comes first; expansion is the generation's first own step
        if t.config.generation == "kip320":
            built[index] = kip320.fenced_leader_expand_isr(t, wait_for_epoch_start=False)
        else:
            built[index] = kip320_first_try.leader_expand_isr_better_fencing(t, wait_for_epoch_start=False)
    return built


class DurabilityModel(ClassicModel):
    """A classic generation with the durability options on (``make_model`` builds it only when an
    option is not at its default)."""

    def __init__(self, config: ClassicConfig, options: DurabilityOptions, invariants: str = "default") -> None:
        import properties as catalogue

        self._validate(config, options)
        self.config = config
        self.options = options
        self.invariants = invariants
        self.tables = self._make_tables(config, options)
        self.layout = self.tables.layout
        self.ext = self.tables.ext
        names = catalogue.parse_selection(invariants, self.tables)
        self._steps = tuple(self._classic_steps())
        self._extra_steps = tuple(self._new_steps())
        self._properties = tuple(catalogue.build(self.tables, names))
        self._symmetry = Symmetry(self.tables, extra=self._relabel_extension)
        from .durability_view import DurabilityView

        self._view = DurabilityView(self.tables)
        self.successors = self._build_successors()

    def __repr__(self) -> str:
        return f"DurabilityModel({self.config.describe()}; {self.options.describe()})"

    def __reduce__(self):
        return (DurabilityModel, (self.config, self.options, self.invariants))

    def init_states(self) -> list[tuple]:
        return [self.layout.initial() + self.ext.initial(self.layout.n)]

    # Hooks for ``model.consumers`` (which adds options on top of these).
    def _validate(self, config: ClassicConfig, options: DurabilityOptions) -> None:
        options.validate(config)

    def _make_tables(self, config: ClassicConfig, options: DurabilityOptions) -> DurabilityTables:
        return DurabilityTables(config, options)

    def _classic_steps(self) -> list:
        return _expand_steps(self.tables, self.options)

    # -- steps -----------------------------------------------------------------------------------

    def _new_steps(self) -> list:
        t, ext, o = self.tables, self.ext, self.options
        out = []
        if o.max_crashes:
            out += [steps.broker_stops(t, ext, o), steps.broker_restart(t, ext, o)]
            if ext.flushed >= 0:
                out.append(steps.flush_log(t, ext, o))
            if o.unclean_election != "off":
                out.append(steps.unclean_leader_election(t, ext, o))
        return out

    def _action_info(self) -> dict[int, tuple[int, int, int, int]]:
        """id(action) -> (kind, actor bit, replica index, record bit or new HW) for every classic action."""
        bit = self.layout.bit
        info: dict[int, tuple[int, int, int, int]] = {}
        acts = self.tables.actions
        for name in vars(acts):
            for action in _walk(getattr(acts, name)):
                actor = _actors(action)
                mask = bit[actor] if actor >= 0 else 0
                if isinstance(action, LeaderWrite):
                    info[id(action)] = (WRITE, mask, action.leader - 1, 1 << action.record_id)
                elif isinstance(action, LeaderIncHighWatermark):
                    info[id(action)] = (INC_HW, mask, action.leader - 1, action.hw)
                else:
                    info[id(action)] = (PLAIN, mask, actor, 0)
        return info

    def _build_successors(self):
        classic_steps = self._steps
        extra_steps = self._extra_steps
        info = self._action_info()
        lay, ext = self.layout, self.ext
        start = ext.start
        full = ext.length
        dead_i, flushed_i, acked_i = ext.dead, ext.flushed, ext.acked
        acks = self.options.acks
        min_isr = self.options.min_insync_replicas
        base = lay.base
        n = lay.n
        length = self.tables.logs.length
        records = self.tables.logs.records
        epochs = self.tables.logs.epochs
        popcount = tuple(bin(m).count("1") for m in range(1 << n))
        flush_slots = tuple((base[r], flushed_i + r) for r in range(n)) if flushed_i >= 0 else ()

        def successors(s: tuple) -> list[tuple[Any, tuple]]:
            raw: list[tuple[Any, tuple]] = []
            for step in classic_steps:
                step(s, raw)
            dead = s[dead_i] if dead_i >= 0 else 0
            out: list[tuple[Any, tuple]] = []
            tail = s[start:]
            for action, nxt in raw:
                kind, actor, r, extra = info[id(action)]
                if dead & actor:
                    continue
                if len(nxt) != full:
                    nxt = nxt + tail  # the controller steps rebuild the classic fields only
                if kind == WRITE and acks == "1":
                    nxt = nxt[:acked_i] + (nxt[acked_i] | extra,) + nxt[acked_i + 1 :]
                elif kind == WRITE and acks == "all":
                    if popcount[s[base[r] + ISR]] < min_isr:
                        continue  # NotEnoughReplicasException: the produce request is refused
                elif kind == INC_HW and acks == "all":
                    b = base[r]
                    if s[b + LEADER] == r and popcount[s[b + ISR]] >= min_isr:
                        record = records[s[b]][extra - 1]
                        nxt = nxt[:acked_i] + (nxt[acked_i] | 1 << (record // epochs),) + nxt[acked_i + 1 :]
                if flush_slots:
                    for lb, fi in flush_slots:
                        k = length[nxt[lb]]
                        if nxt[fi] > k:
                            nxt = nxt[:fi] + (k,) + nxt[fi + 1 :]
                out.append((action, nxt))
            for step in extra_steps:
                step(s, out)
            return out

        return successors

    # -- symmetry and views ----------------------------------------------------------------------

    def _relabel_extension(self, inverse: list[int]) -> list[str]:
        """Source expressions of the extension fields under a relabelling (``model.symmetry``)."""
        ext = self.ext
        fields = []
        if ext.dead >= 0:
            fields += [f"M[s[{ext.dead}]]", f"s[{ext.crashes}]"]
        if ext.flushed >= 0:
            fields += [f"s[{ext.flushed + inverse[new]}]" for new in range(self.layout.n)]
        if ext.acked >= 0:
            fields.append(f"s[{ext.acked}]")
        return fields
