"""What a check hands back: statistics, violations and the traces that show them.

Counts follow TLC's definitions so results compare number for number: initial states are at
depth 1, ``generated_states`` counts every initial state and every successor computed (duplicates
included), ``distinct_states`` counts states stored, and a trace's length counts its states.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Step:
    """One state of a trace and the action that led to it (None for the initial state)."""

    action: Any
    state: Any


@dataclass(frozen=True)
class Trace:
    """A path from an initial state: ``steps[0].action`` is None.

    A lasso (a liveness counterexample) also has ``loop``: the 0-based index of the state the
    last state goes back to, by ``loop_action``, forever. ``loop_action`` None means the last
    state stutters (repeats itself forever; then ``loop`` is the last index)."""

    steps: tuple[Step, ...]
    loop: int | None = None
    loop_action: Any = None

    @property
    def is_lasso(self) -> bool:
        return self.loop is not None

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def states(self) -> list[Any]:
        return [s.state for s in self.steps]

    @property
    def actions(self) -> list[Any]:
        return [s.action for s in self.steps[1:]]

    @property
    def last(self) -> Any:
        return self.steps[-1].state


@dataclass(frozen=True)
class Violation:
    """A property that failed, how (``kind``: always, transition, deadlock, eventually, leads-to)
    and the shortest trace that shows it (a lasso for liveness). ``detail`` names the values that
    failed it, when the property can say."""

    property: str
    kind: str
    trace: Trace
    detail: str = ""


@dataclass
class CheckResult:
    """The outcome of ``isrcheck.explorer.check``.

    ``complete`` is True when every reachable state within the model's bounds was explored;
    a run cut by ``max_depth``, by the first violation, by an interrupt or by a resource limit
    (``limit``, e.g. the memory ceiling) is not complete.
    ``vacuous`` lists the ``sometimes`` properties a complete run never reached; ``examples``
    holds a shortest trace to each one it did reach. ``levels`` counts the distinct states first
    found at each BFS depth (index 0 = depth 1), when the engine records them (the HTML report's chart).
    """

    distinct_states: int
    generated_states: int
    depth: int
    complete: bool
    violations: list[Violation]
    elapsed: float
    engine: str = "local"
    vacuous: list[str] = field(default_factory=list)
    examples: dict[str, Trace] = field(default_factory=dict)
    properties: list[str] = field(default_factory=list)
    interrupted: bool = False
    store: str = "exact"
    collision_probability: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    levels: list[int] = field(default_factory=list)
    graph: Any = None  # isrcheck.explorer.liveness.graph_store.StateGraph when liveness or the graph was asked for
    limit: str | None = None  # "memory": stopped at a resource limit before an answer
    limit_note: str = ""  # what the limit was, where the run stopped, and how to go further

    @property
    def ok(self) -> bool:
        """No violation and no vacuous ``sometimes`` property."""
        return not self.violations and not self.vacuous

    @property
    def states_per_second(self) -> float:
        return self.distinct_states / self.elapsed if self.elapsed > 0 else 0.0

    def violation(self, name: str) -> Violation | None:
        return next((v for v in self.violations if v.property == name), None)
