"""The classic Kafka replication model in symbolic form (``isrcheck.explorer.symbolic.contract``).

``make_symbolic(explicit, unbounded=False)`` is registered in the ``isrcheck.symbolic`` entry-point
group as ``classic``. With ``unbounded=False`` the relation carries the explicit model's bounds as
guards (BMC explores exactly BFS's state space, and successors match one for one: the equivalence
test); with ``unbounded=True`` log lengths, record ids and leader epochs are unbounded z3 Ints and
arrays, for a fixed number of replicas (proofs).

Every option of ``isrcheck.model.symbolic.durability`` (acks, every kind of stop, flushes, unclean
election, KIP-966's rule, K6's early ISR expansion, availability-zone failures, consumer reads) and
truncation on fetch (``--truncation``: a generation derived by ``Generation.on_fetch``, whose steps
``isrcheck.model.symbolic.derived`` derives like any other) is encoded for bounded model checking;
proofs encode the same options and truncation on fetch (the descriptions read without bounds;
``acked`` and ``served`` arrays over every record id and offset). The KRaft
family has its own symbolic form (``isrcheck.model.kraft.symbolic``), which ``make_symbolic``
returns for its generations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.explorer.symbolic.lemma_sets import named_sets
from isrcheck.model.encoding.fields import served_conflict

from . import adapter, vars
from . import lemmas as lemma_module
from .durability import (
    acked_record_not_lost,
    acked_record_survives,
    consistent_read,
    durability,
    extras,
    log_matching,
)
from .lemmas import candidate_lemmas, type_ok
from .properties import symbolic_properties
from .steps import GENERATIONS, Bounds, generation_steps


class KafkaSymbolic:
    """The symbolic ``Next`` of one generation for ``n`` replicas (see the module docstring)."""

    def __init__(self, explicit: Any, unbounded: bool = False) -> None:
        kraft = adapter.kraft_generation(explicit)
        if kraft is not None:  # make_symbolic hands the KRaft family to its own form
            raise ValueError(f"the KRaft family (--generation {kraft}) has its own symbolic form: "
                             "isrcheck.model.kraft.symbolic.KraftSymbolic")
        if not adapter.is_replication(explicit):
            raise ValueError("this model is not the classic replication model (isrcheck.model.replication)")
        consumers = adapter.consumers_of(explicit)
        self.durability = durability(adapter.durability_of(explicit), unbounded, consumers, adapter.az_of(explicit))
        cfg = adapter.config_of(explicit)
        if cfg.generation not in GENERATIONS:
            raise ValueError(f"generation {cfg.generation} is not encoded symbolically; use one of "
                             f"{', '.join(GENERATIONS)}")
        self.explicit = explicit
        self.unbounded = unbounded
        self.generation = cfg.generation
        self.n = cfg.replicas
        self.bounds = Bounds() if unbounded else Bounds(cfg.log_size, cfg.max_records, cfg.max_leader_epoch)
        self.log_size = None if unbounded else cfg.log_size
        self.epochs = None if unbounded else cfg.max_leader_epoch + 1
        self.extras = extras(self.durability, None if unbounded else cfg.max_records, self.log_size)
        self._steps = generation_steps(adapter.generation_of(explicit), self.n, self.bounds, self.durability)
        # Bounded: every int (offsets, ids, epochs, replica indices, and each plus or minus one)
        # fits a signed bit-vector of this width; BMC then bit-blasts (isrcheck.explorer.symbolic.bmc).
        largest = max(cfg.log_size, cfg.max_records, cfg.max_leader_epoch + 1, self.n, self.durability.max_crashes) + 1
        self.int_bits = None if unbounded else largest.bit_length() + 1
        self._props = symbolic_properties(self.n, self.log_size)
        self._props["LogMatching"] = log_matching(self.n, self.log_size)
        if self.extras.records != 0:
            self._props["AckedRecordNotLost"] = acked_record_not_lost(self.n, self.log_size)
            self._props["AckedRecordSurvives"] = acked_record_survives(self.n, self.log_size)
        if self.extras.served != 0:
            conflict = vars.UNBOUNDED_CONFLICT if unbounded else served_conflict(cfg.max_records)
            self._props["ConsistentRead"] = consistent_read(self.n, self.log_size, conflict)

    def __repr__(self) -> str:
        return f"KafkaSymbolic({self.generation}, replicas={self.n}, {'unbounded' if self.unbounded else 'bounded'})"

    def variables(self, ops: Any, name: str) -> vars.KafkaVars:
        return vars.make_vars(ops, name, self.n, self.log_size, self.epochs, self.extras)

    def init(self, ops: Any, v: vars.KafkaVars) -> Any:
        return vars.init(ops, v)

    def steps(self) -> Sequence[SymStep]:
        return self._steps

    def equal(self, ops: Any, v: vars.KafkaVars, w: vars.KafkaVars, exact: bool = True) -> Any:
        return vars.equal(ops, v, w, self.log_size, self.epochs, exact)

    def properties(self) -> dict[str, Callable[[Any, vars.KafkaVars], Any]]:
        return self._props

    def decode(self, ops: Any, value: Callable[[Any], Any], v: vars.KafkaVars, explicit: Any = None) -> tuple:
        return vars.decode(explicit or self.explicit, ops, value, v)

    def encode(self, state: tuple) -> vars.KafkaVars:
        v = vars.encode(self.explicit, state)
        return vars.unbounded_extras(self.explicit, v) if self.unbounded else v

    @property
    def symmetric_replicas(self) -> int:
        """Replicas are interchangeable (``isrcheck.explorer.symbolic.symmetry``): BMC breaks the symmetry.
        Not when zones fail and replicas sit in different zones (a swap across zones is no symmetry)."""
        return 0 if len(set(self.durability.az_of)) > 1 else self.n

    def swap_fixed(self, ops: Any, v: vars.KafkaVars, i: int, j: int) -> Any:
        return vars.swap_fixed(ops, v, i, j, self.log_size, self.epochs)

    def type_ok(self, ops: Any, v: vars.KafkaVars) -> Any:
        """``lemmas.type_ok``; bounded, also the explicit model's bounds (logs within ``log_size``,
        ids within ``max_records``, requests within the epochs): every reachable state has them, and
        induction over the bounded encoding (``prove --bounded``) needs them so that a
        counterexample to induction is a state of this configuration (no int past its bit-vector)."""
        ok = type_ok(ops, v, self.n, self.durability, self.log_size, self.epochs)
        if self.unbounded:
            return ok
        cfg = adapter.config_of(self.explicit)
        ranges = [x <= self.log_size for x in v.length + v.hw + v.flushed]
        return ops.and_(ok, v.nrid <= cfg.max_records, v.nreq <= self.epochs, *ranges)

    def lemmas(self) -> dict[str, Callable[[Any, vars.KafkaVars], Any]]:
        return candidate_lemmas(self.n, self.durability, self.log_size, self.epochs)

    def lemma_sets(self) -> dict[str, tuple[str, ...]]:
        """The proof's sets in ``lemmas.py`` (``isr-proof``: StrongIsr's 21 at 2 replicas,
        ``isr-proof-3``: the 22 at 3), by ``prove --lemma-set``."""
        return named_sets(lemma_module.__dict__)

    def explicit_for(self, ops: Any, value: Callable[[Any], Any], vs: Sequence[vars.KafkaVars]) -> Any:
        """An explicit model of this generation whose bounds hold every state in ``vs``."""
        cfg = adapter.config_of(self.explicit)
        # The option fields count too: a recovery point past the log end, a served id past nrid.
        size = max([1] + [value(x) for v in vs for x in v.length + v.flushed])
        served: list = []
        if self.extras.served is None:
            # type_ok allows a served record at any offset below nrid, past every log end too:
            # the log size covers each such offset, or decode would drop what the CTI served there.
            at = [(o, value(ops.sel(v.served, o))) for v in vs for o in range(max(size, value(v.nrid)))]
            size = max([size] + [o + 1 for o, x in at if x != 0])
            served = [x for _, x in at]
        records = max([1] + [value(v.nrid) for v in vs] + served)
        epoch = max([0] + [value(v.nreq) - 1 for v in vs])
        config = adapter.ClassicConfig(replicas=self.n, log_size=size, max_records=records,
                                       max_leader_epoch=epoch, generation=cfg.generation)
        return adapter.model_like(self.explicit, config)


def make_symbolic(explicit: Any, *, unbounded: bool = False) -> Any:
    """Entry point of the ``isrcheck.symbolic`` group for the ``classic`` model: the ZooKeeper-era
    generations here, the KRaft family (``--generation kraft-3.5``, ``kraft-kip966``) in
    ``isrcheck.model.kraft.symbolic``."""
    if adapter.kraft_generation(explicit) is not None:
        from isrcheck.model.kraft.symbolic import KraftSymbolic

        return KraftSymbolic(explicit, unbounded)
    return KafkaSymbolic(explicit, unbounded)
