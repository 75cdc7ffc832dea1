"""Re-executing a recorded trace against the model, step by step.

Replay is how a counterexample outlives the run that found it: each recorded action must be
enabled, in the model's words (its repr), and must lead to exactly the recorded state. The first
step where either fails is reported with what the model offered instead, so a user can tell a
fixed bug (the action is no longer enabled) from a changed model or a damaged file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.errors import UserError
from isrcheck.explorer.result import Step, Trace
from isrcheck.explorer.selection import describe_failure, select_properties
from isrcheck.explorer.traces.itf import itf_state
from isrcheck.explorer.traces.views import changes, short


class Divergence(Exception):
    """The model no longer produces the recorded trace."""


@dataclass
class ReplayResult:
    trace: Trace
    violated: list[tuple[str, int, str]]  # (property, 1-based state index, detail)

    def violates(self, name: str) -> bool:
        return any(p == name for p, _, _ in self.violated)


def _strip(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != "#meta"}


def replay_states(model: Any, recorded: Sequence[dict[str, Any]]) -> Trace:
    """Match each recorded ITF state (with its action in ``#meta``) against the model."""
    first = _strip(recorded[0])
    state = next((s for s in model.init_states() if itf_state(model, s) == first), None)
    if state is None:
        raise Divergence("state 1: no initial state of the model equals the recorded one; the model or "
                         "its options differ from those that wrote the trace")
    steps = [Step(None, state)]
    for index, entry in enumerate(recorded[1:], start=2):
        action_text = entry["#meta"]["action"]
        want = _strip(entry)
        offered = list(model.successors(state))
        same_action = [(a, t) for a, t in offered if repr(a) == action_text]
        if not same_action:
            enabled = ", ".join(sorted({repr(a) for a, _ in offered})) or "(none: a deadlock)"
            raise Divergence(f"state {index}: action {action_text} is not enabled; enabled actions: {enabled}")
        match = next(((a, t) for a, t in same_action if itf_state(model, t) == want), None)
        if match is None:
            got = itf_state(model, same_action[0][1])
            diff = "; ".join(f"{p}: recorded {short(n)}, model gives {short(o)}" for p, o, n in changes(got, want))
            raise Divergence(f"state {index}: {action_text} leads elsewhere than recorded: {diff}")
        steps.append(Step(*match))
        state = match[1]
    return Trace(tuple(steps))


def replay_actions(model: Any, actions: Sequence[str], init_index: int = 0) -> Trace:
    """Replay by action reprs alone, from the ``init_index``-th initial state (what exported
    pytest regressions use: short, and readable in a diff)."""
    inits = list(model.init_states())
    if not 0 <= init_index < len(inits):
        raise Divergence(f"the model has {len(inits)} initial state(s); there is no initial state {init_index}")
    state = inits[init_index]
    steps = [Step(None, state)]
    for index, action_text in enumerate(actions, start=2):
        match = next(((a, t) for a, t in model.successors(state) if repr(a) == action_text), None)
        if match is None:
            enabled = ", ".join(sorted({repr(a) for a, _ in model.successors(state)})) or "(none)"
            raise Divergence(f"state {index}: action {action_text} is not enabled; enabled actions: {enabled}")
        steps.append(Step(*match))
        state = match[1]
    return Trace(tuple(steps))


def close_loop(model: Any, trace: Trace, loop: int, loop_action: str | None) -> Trace:
    """A replayed trace made a lasso again: the last state must go back to state ``loop`` by the
    recorded action (None: it stutters, and ``loop`` must be the last state)."""
    n = len(trace.steps)
    if loop_action is None:
        if loop != n - 1:
            raise Divergence(f"the loop: a stuttering loop must start at the last state ({n}), not at state {loop + 1}")
        return Trace(trace.steps, loop=loop, loop_action=None)
    target = itf_state(model, trace.steps[loop].state)
    offered = list(model.successors(trace.last))
    same = [a for a, t in offered if repr(a) == loop_action]
    if not same:
        enabled = ", ".join(sorted({repr(a) for a, _ in offered})) or "(none: a deadlock)"
        raise Divergence(f"the loop: action {loop_action} is not enabled in state {n}; enabled actions: {enabled}")
    action = next((a for a, t in offered if repr(a) == loop_action and itf_state(model, t) == target), None)
    if action is None:
        raise Divergence(f"the loop: {loop_action} from state {n} does not lead back to state {loop + 1}")
    return Trace(trace.steps, loop=loop, loop_action=action)


def evaluate(model: Any, trace: Trace, properties: Sequence[str] | None = None) -> ReplayResult:
    """Which properties fail along a trace, and at which state first. On a lasso, liveness
    properties are checked too: one fails when the lasso's loop is fair under the model's
    fairness and the property is never satisfied on the infinite behaviour."""
    props = select_properties(model, properties)
    violated: list[tuple[str, int, str]] = []
    if trace.loop is not None and props.liveness:
        from isrcheck.explorer.liveness.checker import lasso_is_fair, violates_on_lasso

        fair, _ = lasso_is_fair(model, trace)
        for prop in props.liveness:
            index = violates_on_lasso(prop, trace)
            if index is not None and fair:  # an unfair loop is no counterexample: the property is not violated
                violated.append((prop.name, index, "never satisfied on this lasso, whose loop is fair"))
    for prop in props.always:
        for i, step in enumerate(trace.steps, start=1):
            if not prop.predicate(step.state):
                violated.append((prop.name, i, describe_failure(prop, step.state)))
                break
    for prop in props.transition:
        for i in range(1, len(trace.steps)):
            before, after = trace.steps[i - 1], trace.steps[i]
            if not prop.predicate(before.state, after.action, after.state):
                violated.append((prop.name, i + 1, describe_failure(prop, before.state, after.action, after.state)))
                break
    return ReplayResult(trace, violated)


def replay_model_spec(data: dict[str, Any], given: str | None = None, base: str | None = None) -> tuple[str, str]:
    """The model a replay runs, and the sentence that says which and why.

    ``given`` (``--model``) is the user's choice and wins. Otherwise only a registered model (an
    installed entry point) is run: a trace naming a model file is data from whoever wrote it, and
    importing that file would run its code, so it is refused with the way on (name the file; ``base``,
    the trace's folder, lets the message spell the path the trace means)."""
    from isrcheck.explorer.registry import is_file_spec, resolve_spec

    recorded = data["#meta"]["model"]
    if given is not None:
        return given, f"Replaying against model {given} (given with --model; the trace names {recorded})."
    if is_file_spec(recorded):
        meant = resolve_spec(recorded, base) if base else "path/to/model.py"
        raise UserError(
            f"the trace names the model file {recorded!r}; isrcheck runs no code a trace file names (a trace may "
            f"come from anyone). If you trust that model file, name it yourself: --model {meant!r}; or look at "
            "the trace with isrcheck show, which runs no model"
        )
    return recorded, f"Replaying against the registered model {recorded} (named in the trace)."


def load_and_replay(data: dict[str, Any], model_spec: str | None = None,
                    properties_file: str | None = None) -> tuple[Any, ReplayResult]:
    """Build the model (``model_spec``, or the registered model the trace names: see
    ``replay_model_spec``) with the trace's options and replay the file against it. ``data`` comes
    from ``read_itf``, which has checked every field's type."""
    from isrcheck.explorer.registry import build_model

    meta = data["#meta"]
    spec, _ = replay_model_spec(data, model_spec)
    model = build_model(spec, meta.get("options") or {})
    recorded = meta.get("properties_file")
    if properties_file is not None:  # the user's own properties file (--properties): trusted as a model file is
        from isrcheck.explorer.extra import with_properties_file

        model = with_properties_file(model, properties_file)
    elif isinstance(recorded, str):
        # Written with --properties: the file is code, and a trace names it as data from whoever wrote
        # the trace, so it is never imported on the trace's word (as a model file is not).
        raise UserError(
            f"the trace was checked with the properties file {recorded!r} (--properties); isrcheck runs no code a "
            f"trace file names. If you trust that file, name it yourself: --properties {recorded!r} (relative to "
            "the trace's folder as written); or look at the trace with isrcheck show, which runs nothing"
        )
    trace = replay_states(model, data["states"])
    if data.get("loop") is not None:
        trace = close_loop(model, trace, data["loop"], meta.get("loop_action"))
    kinds = ("always", "transition", "eventually", "leads-to")
    chosen = [meta["property"]] if meta.get("property") and meta.get("kind") in kinds else None
    return model, evaluate(model, trace, chosen)
