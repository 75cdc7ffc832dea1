"""The KRaft family (``isrcheck.model.kraft``) in symbolic form, for ``isrcheck bmc`` and ``prove``.

``KraftSymbolic(explicit, unbounded)`` is a ``SymbolicModel`` (``isrcheck.explorer.symbolic.contract``)
of one KRaft configuration: the state as symbolic variables (``vars``), one symbolic step per
branch of each explicit step (``steps``), the family's invariants (``properties``). The classic
factory (``isrcheck.model.symbolic.make_symbolic``) hands a KRaft model here. With
``unbounded=False`` the arrays have the sizes no reachable state exceeds (logs: ``--max-records``;
the metadata log: ``steps.metadata_bound``) and the relation is the explicit model's (bounded model
checking explores what BFS explores); with ``unbounded=True`` logs and the metadata log are
unbounded z3 arrays and ints (proofs), for the configuration's brokers, values and perturbation
limits, which are the protocol's state, not bounds.

Refused by option name (``unsupported``): the split fetch, reassignment and spare brokers (their
state is not represented) and more than one shutdown in all (stale registration requests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep

from . import vars as kv
from .properties import kraft_properties
from .steps import KraftSteps, metadata_bound


def unsupported(config: Any) -> str | None:
    """Why this KRaft configuration has no symbolic form (the option to drop), or None."""
    if config.split_fetch:
        return "--split-fetch (its messages in flight are not encoded symbolically; drop it)"
    if config.reassignments or config.spare_brokers:
        return "--max-reassignments and --spare-brokers (reassignment is not encoded symbolically; drop them)"
    if config.lossy_shutdowns + config.clean_shutdowns > 1:
        return (f"--max-crashes {max(config.lossy_shutdowns, config.clean_shutdowns)} with --stops "
                f"{'all' if config.lossy_shutdowns and config.clean_shutdowns else 'lossy or controlled'}: more "
                "than one shutdown in all leaves stale registration requests in flight, which are not encoded "
                "symbolically; use --max-crashes 1 with --stops lossy or --stops controlled")
    return None


class KraftSymbolic:
    """The symbolic ``Next`` of one KRaft configuration (see the module docstring)."""

    def __init__(self, explicit: Any, unbounded: bool = False) -> None:
        c = explicit.config
        why = unsupported(c)
        if why is not None:
            raise ValueError(f"the KRaft family's symbolic form does not cover {why}")
        self.explicit = explicit
        self.config = c
        self.unbounded = unbounded
        self.n = c.brokers
        records = metadata_bound(c)
        self.z = kv.Sizes(c.brokers, c.values, None if unbounded else c.values,
                          None if unbounded else records)
        self._steps = KraftSteps(c, self.z).all()
        self._props = kraft_properties(c, self.z)
        self._start = kv.encode(explicit, explicit.init_states()[0], self.z)
        # Every int (offsets up to the metadata log's size, leader and partition epochs up to one
        # more, broker epochs, counters) and each plus or minus one fits this signed width.
        largest = max(records + 2, c.brokers + c.lossy_shutdowns + c.clean_shutdowns + 2, c.values + 2, 4)
        self.int_bits = None if unbounded else largest.bit_length() + 1

    def __repr__(self) -> str:
        return f"KraftSymbolic({self.config.generation}, brokers={self.n}, {'unbounded' if self.unbounded else 'bounded'})"

    def variables(self, ops: Any, name: str) -> kv.KraftVars:
        return kv.make_vars(ops, name, self.z)

    def init(self, ops: Any, v: kv.KraftVars) -> Any:
        return kv.equal(ops, v, self._start, exact=False, z=self.z)

    def steps(self) -> Sequence[SymStep]:
        return self._steps

    def equal(self, ops: Any, v: kv.KraftVars, w: kv.KraftVars, exact: bool = True) -> Any:
        return kv.equal(ops, v, w, exact, self.z)

    def properties(self) -> dict[str, Callable[[Any, kv.KraftVars], Any]]:
        return self._props

    def decode(self, ops: Any, value: Callable[[Any], Any], v: kv.KraftVars, explicit: Any = None) -> tuple:
        return kv.decode(explicit or self.explicit, ops, value, v, self.z)

    def encode(self, state: tuple) -> kv.KraftVars:
        return kv.encode(self.explicit, state, self.z)

    def type_ok(self, ops: Any, v: kv.KraftVars) -> Any:
        """What every reachable state has, whatever its size: a metadata log, counters and logs not
        negative, statuses and roles in range, the write floor a log offset or none."""
        parts = [v.mlen >= 1, v.true_hw >= 0]
        for x in v.b:
            parts += [x.llen >= 0, x.hw >= 0, x.md_off >= 0, 0 <= x.status, x.status <= 4, 0 <= x.role,
                      x.role <= 2, -1 <= x.fetch_from, x.fetch_from < self.n]
        return ops.and_(*parts)

    def lemmas(self) -> dict[str, Callable[[Any, kv.KraftVars], Any]]:
        return {}

    def explicit_for(self, ops: Any, value: Callable[[Any], Any], vs: Sequence[kv.KraftVars]) -> Any:
        """The explicit model shows any KRaft state of its configuration (it has no log-size bound)."""
        return self.explicit
