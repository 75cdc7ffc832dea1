"""The replication model with consumers, follower fetching (KIP-392), truncation on fetch with
the fetch response's steps separated (and the KAFKA-14704 order as bug K13), and racks with
availability-zone failures, over any durability options.

``ConsumerModel`` is a ``DurabilityModel`` (``make_model`` builds it only when a consumer option
is not at its default), so acks, stops, flushes and unclean election combine with these options:

- ``consumer_reads``: ``ConsumerFetch`` steps and the ghost ``served`` (per offset: the record id a
  consumer was served there, or CONFLICT); properties in ``properties.consumers``.
- ``truncation``: the generation's truncation on becoming follower is replaced by truncation on
  fetch (``model.consumers_steps``); "on-fetch-hw-first" adds ``FollowerUpdateHighWatermark``.
- ``azs``/``placement``/``max_az_failures``: each replica's zone (shown in the state view as
  ``racks``, fixed for a run and so not part of the state), ``AvailabilityZoneFailure`` steps
  (lossy stops of a whole zone, reusing the durability stop fields), ``BrokerRestart`` and
  ``FlushLog``. Symmetry is kept to relabellings that map zones onto zones.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from . import consumers_steps as csteps
from . import durability_steps as dsteps
from .actions import AvailabilityZoneFailure, ConsumerFetch, FollowerUpdateHighWatermark
from .common import leader_write
from .config import ClassicConfig
from .consumers_config import ConsumerOptions
from .durability import ACTOR_FIELD, DurabilityModel, DurabilityTables, _expand_steps
from .durability_config import DurabilityOptions
from .generations import _shared
from .kip320_first_try import become_follower
from .symmetry import Symmetry

ACTOR_FIELD.setdefault("FollowerUpdateHighWatermark", "follower")


class ConsumerTables(DurabilityTables):
    def __init__(self, config: ClassicConfig, options: DurabilityOptions, consumers: ConsumerOptions) -> None:
        super().__init__(config, options, consumers)
        n, o, r = config.replicas, config.log_size, config.max_records
        self.consumer_actions = [[[ConsumerFetch(x + 1, off, rid) for rid in range(r)] for off in range(o)]
                                 for x in range(n)]
        self.update_hw_actions = [[[FollowerUpdateHighWatermark(f + 1, ld + 1, h) for h in range(o + 1)]
                                   for ld in range(n)] for f in range(n)]
        self.az_of = consumers.az_of(n)


class ConsumerModel(DurabilityModel):
    def __init__(self, config: ClassicConfig, options: DurabilityOptions, consumers: ConsumerOptions,
                 invariants: str = "default") -> None:
        self.consumers = consumers
        super().__init__(config, options, invariants)
        az_of = self.tables.az_of
        if az_of:
            keep = [p for p in permutations(range(config.replicas)) if _keeps_zones(p, az_of)]
            self._symmetry = Symmetry(self.tables, extra=self._relabel_extension, perms=keep)
        self._az_actions: dict[tuple, AvailabilityZoneFailure] = {}

    def __repr__(self) -> str:
        parts = "; ".join(p for p in (self.options.describe(), self.consumers.describe()) if p)
        return f"ConsumerModel({self.config.describe()}; {parts})"

    def __reduce__(self):
        return (ConsumerModel, (self.config, self.options, self.consumers, self.invariants))

    # -- hooks of DurabilityModel ----------------------------------------------------------------

    def _validate(self, config: ClassicConfig, options: DurabilityOptions) -> None:
        self.consumers.validate(config)
        options.validate(config, az_failures=self.consumers.max_az_failures)

    def _make_tables(self, config: ClassicConfig, options: DurabilityOptions) -> ConsumerTables:
        return ConsumerTables(config, options, self.consumers)

    def _classic_steps(self) -> list:
        t, o, c = self.tables, self.options, self.consumers
        if c.truncation == "on-become-follower":
            return _expand_steps(t, o)
        # Kip320's Next with truncation on fetch (model.consumers_steps), in the same order.
        built = _shared(t) + [
            csteps.leader_expand_isr_on_fetch(t, wait_for_epoch_start=not o.expand_before_epoch_start),
            csteps.leader_shrink_isr_on_fetch(t),
            leader_write(t),
            csteps.leader_inc_high_watermark_on_fetch(t),
            become_follower(t),
            csteps.follower_fetch_on_fetch(t),
            csteps.follower_truncate_on_fetch(t),
        ]
        if c.truncation == "on-fetch-hw-first":
            built.append(csteps.follower_update_hw_before_truncation(t, t.update_hw_actions))
        return built

    def _new_steps(self) -> list:
        out = super()._new_steps()
        t, ext, c, o = self.tables, self.ext, self.consumers, self.options
        if c.max_az_failures:
            out.append(csteps.az_failure(t, ext, t.az_of, c.max_az_failures, o.kip966_unclean_recovery,
                                         self._az_action))
            if not o.max_crashes:  # the durability options did not add restarts and flushes
                out += [dsteps.broker_restart(t, ext, o), dsteps.flush_log(t, ext, o)]
            elif "lossy" not in o.crash_kinds:
                out.append(dsteps.flush_log(t, ext, o))
        if c.consumer_reads != "off":
            out.append(csteps.consumer_fetch(t, ext, c.consumer_reads == "any", t.consumer_actions))
        return out

    def _az_action(self, az: int, brokers: tuple, epoch: int, ends: tuple) -> AvailabilityZoneFailure:
        key = (az, brokers, epoch, ends)
        got = self._az_actions.get(key)
        if got is None:
            got = self._az_actions[key] = AvailabilityZoneFailure(az, brokers, epoch, ends)
        return got

    def _action_info(self):
        info = super()._action_info()
        bit = self.layout.bit
        for per_f in self.tables.update_hw_actions:
            for per_l in per_f:
                for action in per_l:
                    info[id(action)] = (0, bit[action.follower - 1], action.follower - 1, 0)
        return info

    def _relabel_extension(self, inverse: list[int]) -> list[str]:
        fields = super()._relabel_extension(inverse)
        ext = self.ext
        if ext.served >= 0:
            fields += [f"s[{ext.served + off}]" for off in range(ext.log_size)]
        if ext.az_failed >= 0:
            fields.append(f"s[{ext.az_failed}]")
        return fields

    def state_view(self, state: tuple) -> dict[str, Any]:
        out = super().state_view(state)
        ext = self.ext
        if ext.served >= 0:
            conflict = self.config.max_records + 1
            out["served"] = {str(off): (None if v == 0 else "CONFLICT" if v == conflict else v - 1)
                             for off in range(ext.log_size) for v in (state[ext.served + off],)}
        if self.tables.az_of:
            out["racks"] = {str(r + 1): f"az{z + 1}" for r, z in enumerate(self.tables.az_of)}
        if ext.az_failed >= 0:
            out["azFailures"] = state[ext.az_failed]
        return out


def _keeps_zones(perm: tuple[int, ...], az_of: tuple[int, ...]) -> bool:
    """Whether relabelling by ``perm`` maps every zone's replicas onto one zone's replicas (zones are
    interchangeable: an AZ failure may hit any of them)."""
    image: dict[int, int] = {}
    for old, new in enumerate(perm):
        if image.setdefault(az_of[old], az_of[new]) != az_of[new]:
            return False
    return len(set(image.values())) == len(image)
