"""The symbolic ``Next`` of a ZooKeeper-era generation: its steps (``Generation.next``, TLA+ action
names, in order), each derived from its one description (``isrcheck.model.steps.described``, read
by ``isrcheck.model.symbolic.derived``), then the steps the durability options add
(``isrcheck.model.symbolic.durability``). A generation, including one derived by an option
(truncation on fetch, ``Generation.on_fetch``) or a user's variant, needs no symbolic code of its
own: the rules it reads (``fenced``, ``isr_rule``...) are read by the same step functions that
the explicit successor function is generated from.

Bounds (``Bounds``) appear only as guards, exactly where the explicit model enforces them: with
bounds the relation is the explicit model's (bounded model checking explores what BFS explores);
without them it is the protocol with unbounded logs, record ids and epochs (proofs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.model.generations import GENERATIONS as EXPLICIT_GENERATIONS
from isrcheck.model.generations import Generation
from isrcheck.model.steps.described import STEPS, StepOptions, described

from .derived import derived_steps
from .durability import CLASSIC, Durability, FailureSteps
from .vars import KafkaVars

# Every generation of isrcheck.model.generations has its symbolic form: the list is that module's.
GENERATIONS = tuple(EXPLICIT_GENERATIONS)


@dataclass(frozen=True)
class Bounds:
    """The explicit model's bounds, as guards (None fields: unbounded)."""

    log_size: int | None = None
    max_records: int | None = None
    max_leader_epoch: int | None = None


class Steps:
    """What the durability options' steps share (``FailureSteps``) for ``n`` replicas under ``bounds``."""

    def __init__(self, n: int, bounds: Bounds, gen: Generation, d: Durability = CLASSIC) -> None:
        self.n = n
        self.bounds = bounds
        self.d = d
        self.gen = gen
        self.R = range(n)

    def running(self, o: Any, v: KafkaVars, r: int) -> Any:
        """Broker r is not stopped (always, without the stop options)."""
        return o.not_(v.dead[r]) if v.dead else True

    def epoch_left(self, v: KafkaVars) -> Any:
        """The controller may still bump the leader epoch (``MaxLeaderEpoch``)."""
        b = self.bounds.max_leader_epoch
        return True if b is None else v.nreq <= b

    def _each(self, label: str, fn: Callable) -> list[SymStep]:
        """One SymStep per replica (the durability options' steps)."""
        return [SymStep(label, lambda o, v, a=a: fn(o, v, a), (a,)) for a in self.R]


def generation_steps(gen: Generation, n: int, bounds: Bounds, d: Durability = CLASSIC) -> list[SymStep]:
    """The symbolic ``Next`` of a generation: its steps (``Generation.next``, TLA+ action names),
    in that order, then the steps the durability options add (``isrcheck.model.symbolic.durability``)."""
    s = Steps(n, bounds, gen, d)
    opt = StepOptions(d.acks, d.min_isr, d.expand_before_epoch_start)
    epochs = None if bounds.max_leader_epoch is None else bounds.max_leader_epoch + 1
    out: list[SymStep] = []
    for name in gen.next:
        if name not in STEPS:
            raise ValueError(f"generation {gen.name}: step {name} has no description")
        out += derived_steps(described(gen, name), n, gen, opt, bounds, epochs)
    return out + FailureSteps(s, d).all()
