"""What a check hands back: statistics, violations and the traces that show them.

Counts follow TLC's definitions so results compare number for number: initial states are at
depth 1, ``generated_states`` counts every initial state and every successor computed (duplicates
included), ``distinct_states`` counts states stored, and a trace's length counts its states.

A result reads well where a user meets it: ``print(result)`` gives what ``isrcheck check`` prints
(each violation's trace, then the summary), ``print(violation)`` and ``print(trace)`` their text,
and in a notebook a result shows its HTML report. The renderers live in
``isrcheck.explorer.traces``, a layer above this module, which therefore cannot import them (not
even inside a method: that would be a cycle). They install themselves in ``RENDERERS`` when
``isrcheck.explorer.traces`` is imported, which ``import isrcheck`` (and ``isrcheck.explorer``)
does; without them a result prints one plain summary line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

# How results, violations and traces read, keyed by what is rendered; filled in by
# ``isrcheck.explorer.traces.display.install``:
#
# - ``"trace"``: ``(model, trace) -> str``, the numbered states (``str(trace)``);
# - ``"violation"``: ``(model, violation) -> str``, the property, the trace, the failing values;
# - ``"result"``: ``(result) -> str``, what the command line prints for a check (``str(result)``);
# - ``"result_html"``: ``(result) -> str``, HTML for a notebook's output cell (``_repr_html_``).
#
# ``model`` is the model the states belong to (``Trace.model``), None when unknown: the states are
# then shown by their own fields.
RENDERERS: dict[str, Callable[..., str]] = {}


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
    state stutters (repeats itself forever; then ``loop`` is the last index).

    ``model``: the model whose states these are, when known (``isrcheck.check`` sets it on the
    traces it returns), so that ``str(trace)`` shows them in the model's words; it takes no part
    in comparing traces."""

    steps: tuple[Step, ...]
    loop: int | None = None
    loop_action: Any = None
    model: Any = field(default=None, repr=False, compare=False)

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

    def __str__(self) -> str:
        render = RENDERERS.get("trace")
        if render is None:
            lasso = f", looping back to state {self.loop + 1}" if self.is_lasso else ""
            return f"a trace of {len(self)} states{lasso}"
        return render(self.model, self)


@dataclass(frozen=True)
class Violation:
    """A property that failed, how (``kind``: always, transition, deadlock, eventually, leads-to)
    and the shortest trace that shows it (a lasso for liveness). ``detail`` names the values that
    failed it, when the property can say."""

    property: str
    kind: str
    trace: Trace
    detail: str = ""

    def __str__(self) -> str:
        render = RENDERERS.get("violation")
        if render is None:
            return f"{self.property} ({self.kind}) violated in a trace of {len(self.trace)} states"
        return render(self.trace.model, self)


@dataclass
class CheckResult:
    """The outcome of ``isrcheck.explorer.check``.

    ``complete`` is True when every reachable state within the model's bounds was explored;
    a run cut by ``max_depth``, by the first violation, by an interrupt or by a resource limit
    (``limit``, e.g. the memory ceiling) is not complete.
    ``vacuous`` lists the ``sometimes`` properties a complete run never reached; ``examples``
    holds a shortest trace to each one it did reach. ``levels`` counts the distinct states first
    found at each BFS depth (index 0 = depth 1), when the engine records them (the HTML report's chart).
    ``model`` is the model checked (``isrcheck.check`` sets it), which the traces are shown with.

    ``print(result)`` shows what ``isrcheck check`` prints; a notebook shows the HTML report
    (``_repr_html_``); ``repr`` stays one line.
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
    model: Any = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """No violation and no vacuous ``sometimes`` property."""
        return not self.violations and not self.vacuous

    @property
    def states_per_second(self) -> float:
        return self.distinct_states / self.elapsed if self.elapsed > 0 else 0.0

    def violation(self, name: str) -> Violation | None:
        return next((v for v in self.violations if v.property == name), None)

    def _line(self) -> str:
        verdict = (f"{len(self.violations)} violation(s): {', '.join(v.property for v in self.violations)}"
                   if self.violations else "no violation")
        scope = "complete" if self.complete else "incomplete"
        return f"{verdict}; {self.distinct_states:,} distinct states, depth {self.depth} ({scope})"

    def __repr__(self) -> str:
        return f"<CheckResult {self._line()}>"

    def __str__(self) -> str:
        render = RENDERERS.get("result")
        return f"Model checking: {self._line()}." if render is None else render(self)

    def _repr_html_(self) -> str | None:
        """The HTML report, for a notebook's output cell (IPython/Jupyter call this); None (the text
        form then) when no renderer is installed."""
        render = RENDERERS.get("result_html")
        return None if render is None else render(self)


def with_model(result: CheckResult, model: Any) -> CheckResult:
    """``result`` with ``model`` recorded on it and on the traces of its violations and examples, so
    that each renders in the model's words wherever a user prints it."""
    result.model = model
    result.violations = [replace(v, trace=replace(v.trace, model=model)) for v in result.violations]
    result.examples = {name: replace(t, model=model) for name, t in result.examples.items()}
    return result
