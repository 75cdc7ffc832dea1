"""The symbolic ``Next`` of a ZooKeeper-era generation: its steps (``Generation.next``, TLA+ action
names, in order), each derived from its one description (``isrcheck.model.steps.described``, read
by ``isrcheck.model.symbolic.derived``), then the steps the durability options add, derived the
same way from theirs (``isrcheck.model.steps.failures``). A generation, including one derived by an option
(truncation on fetch, ``Generation.on_fetch``) or a user's variant, needs no symbolic code of its
own: the rules it reads (``fenced``, ``isr_rule``...) are read by the same step functions that
the explicit successor function is generated from.

Bounds (``Bounds``) appear only as guards, exactly where the explicit model enforces them: with
bounds the relation is the explicit model's (bounded model checking explores what BFS explores);
without them it is the protocol with unbounded logs, record ids and epochs (proofs).
"""

from __future__ import annotations

from dataclasses import dataclass

from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.model.generations import GENERATIONS as EXPLICIT_GENERATIONS
from isrcheck.model.generations import Generation
from isrcheck.model.steps import failures  # noqa: F401 (registers the options' step descriptions)
from isrcheck.model.steps.described import OPTION_STEPS, STEPS, StepOptions, described, option_step_names

from .derived import derived_steps
from .durability import CLASSIC

# Every generation of isrcheck.model.generations has its symbolic form: the list is that module's.
GENERATIONS = tuple(EXPLICIT_GENERATIONS)


@dataclass(frozen=True)
class Bounds:
    """The explicit model's bounds, as guards (None fields: unbounded)."""

    log_size: int | None = None
    max_records: int | None = None
    max_leader_epoch: int | None = None


def generation_steps(gen: Generation, n: int, bounds: Bounds, opt: StepOptions = CLASSIC) -> list[SymStep]:
    """The symbolic ``Next`` of a generation: its steps (``Generation.next``, TLA+ action names),
    in that order, then the steps the options add (``option_step_names``' order)."""
    epochs = None if bounds.max_leader_epoch is None else bounds.max_leader_epoch + 1
    out: list[SymStep] = []
    for name in gen.next:
        if name not in STEPS:
            raise ValueError(f"generation {gen.name}: step {name} has no description")
        out += derived_steps(described(gen, name), n, gen, opt, bounds, epochs)
    for name in option_step_names(opt):
        out += derived_steps(OPTION_STEPS[name], n, gen, opt, bounds, epochs)
    return out
