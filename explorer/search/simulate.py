"""Random simulation: behaviours of bounded length checked one by one, as TLC's ``-simulate``.

Exhaustive search stores every state; some bounds make that impossible. Simulation stores nothing
but the behaviour it is walking: from a randomly chosen initial state it takes a randomly chosen
successor at each step, up to ``depth`` states, checks the invariants on every state and the
transition properties on every step, and starts again, ``behaviours`` times. It can find a
violation; it can never prove that none exists, so a run without one is reported as "no violation
found in N behaviours", never as "holds".

Determinism is kept: one ``random.Random(seed)`` drives every choice, and the model's successor
order is deterministic (part of the contract), so a seed replays the same behaviours everywhere.
A behaviour stops early at a state with no successor or outside the model's bounds.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from isrcheck.explorer.contract import within_bounds
from isrcheck.explorer.errors import ContractError, UserError
from isrcheck.explorer.result import Step, Trace, Violation
from isrcheck.explorer.selection import describe_failure, select_properties


@dataclass
class SimulationResult:
    """The outcome of ``simulate``: how many behaviours were tried (TLC's figure), how many states
    they visited in all, the longest behaviour, and the first violation if one was found.
    ``reached`` names the ``sometimes`` properties some behaviour reached (informative only: a
    simulation that misses one has not shown it unreachable)."""

    behaviours: int
    states: int
    longest: int
    depth: int
    seed: int
    violations: list[Violation]
    elapsed: float
    reached: list[str] = field(default_factory=list)
    not_reached: list[str] = field(default_factory=list)
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return not self.violations


def simulate(model: Any, *, depth: int, behaviours: int, seed: int = 0,
             properties: Sequence[str] | None = None) -> SimulationResult:
    """Walk ``behaviours`` random behaviours of at most ``depth`` states (initial state included, as
    TLC counts) and check the selected properties on each; stop at the first violation."""
    for name, value, low in (("depth", depth, 1), ("behaviours", behaviours, 1)):
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise UserError(f"{name} must be an integer >= {low}, not {value!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise UserError(f"seed must be an integer, not {seed!r}")
    props = select_properties(model, properties)
    inits = list(model.init_states())
    if not inits:
        raise ContractError(f"{type(model).__name__}.init_states() returned no state; a model needs at least one")
    rng = random.Random(seed)
    started = time.monotonic()
    pending = {p.name: p for p in props.sometimes}
    reached: list[str] = []
    tried = states = longest = 0
    violation: Violation | None = None
    interrupted = False
    try:
        while tried < behaviours and violation is None:
            tried += 1
            steps = [Step(None, rng.choice(inits))]
            violation = _check_state(props, pending, reached, steps)
            while violation is None and len(steps) < depth:
                state = steps[-1].state
                if not within_bounds(model, state):
                    break
                succ = list(model.successors(state))
                if not succ:
                    break
                action, nxt = succ[rng.randrange(len(succ))]
                steps.append(Step(action, nxt))
                violation = _check_step(props, steps) or _check_state(props, pending, reached, steps)
            states += len(steps)
            longest = max(longest, len(steps))
    except KeyboardInterrupt:
        interrupted = True
    return SimulationResult(
        behaviours=tried, states=states, longest=longest, depth=depth, seed=seed,
        violations=[violation] if violation else [], elapsed=time.monotonic() - started,
        reached=reached, not_reached=list(pending), interrupted=interrupted)


def _check_state(props: Any, pending: dict[str, Any], reached: list[str], steps: list[Step]) -> Violation | None:
    state = steps[-1].state
    for prop in props.always:
        if not prop.predicate(state):
            return Violation(prop.name, "always", Trace(tuple(steps)), describe_failure(prop, state))
    for name in [n for n, p in pending.items() if p.predicate(state)]:
        del pending[name]
        reached.append(name)
    return None


def _check_step(props: Any, steps: list[Step]) -> Violation | None:
    if len(steps) < 2:
        return None
    state, (action, nxt) = steps[-2].state, (steps[-1].action, steps[-1].state)
    for prop in props.transition:
        if not prop.predicate(state, action, nxt):
            return Violation(prop.name, "transition", Trace(tuple(steps)), describe_failure(prop, state, action, nxt))
    return None


def render_simulation(result: SimulationResult) -> str:
    """The summary lines a user reads after a simulation."""
    verdict = (f"violation of {result.violations[0].property} found" if result.violations
               else "no violation found (a simulation proves nothing: it samples behaviours)")
    lines = [
        f"Simulation {'interrupted' if result.interrupted else 'finished'}: {verdict}.",
        f"{result.behaviours:,} behaviours tried (seed {result.seed}, at most {result.depth} states each), "
        f"{result.states:,} states visited, longest behaviour {result.longest} states.",
        f"{result.elapsed:.2f} s, {result.states / result.elapsed if result.elapsed > 0 else 0:,.0f} states/s.",
    ]
    if result.reached:
        lines.append(f"Reached (sometimes): {', '.join(result.reached)}.")
    if result.not_reached:
        lines.append(f"Not reached in these behaviours (sometimes): {', '.join(result.not_reached)}.")
    return "\n".join(lines)
