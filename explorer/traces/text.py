"""Counterexamples as text a person reads: numbered states, the action at each step in the
model's words, only what changed (the full state with ``full=True``), and the property that failed
with the values that failed it."""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.contract import signals
from isrcheck.explorer.result import CheckResult, Trace, Violation
from isrcheck.explorer.traces.glossary import glossary
from isrcheck.explorer.traces.trigger import trigger_index
from isrcheck.explorer.traces.views import changes, flatten, short, view


def render_trace(model: Any, trace: Trace, *, full: bool = False, explain: bool = False,
                 trigger: int | None = None) -> str:
    """The trace as numbered states; ``explain`` adds what each field shown means (the model's
    ``field_docs``) after the trace; ``trigger`` (0-based) marks where a leads-to property's
    trigger held with its target never holding after."""
    lines = []
    shown: list[str] = []
    previous: dict[str, Any] | None = None
    for index, step in enumerate(trace.steps, start=1):
        current = view(model, step.state)
        head = "initial state" if step.action is None else repr(step.action)
        notes = []
        if trace.loop is not None and index == trace.loop + 1:
            notes.append("the loop starts here")
        if trigger is not None and index == trigger + 1:
            notes.append("the trigger holds here, and the target never holds from here on")
        if notes:
            head += "   <- " + "; ".join(notes)
        lines.append(f"State {index}: {head}")
        if previous is None or full:
            for path, value in flatten(current).items():
                lines.append(f"    {path} = {short(value)}")
                shown.append(path)
        else:
            diff = changes(previous, current)
            for path, old, new in diff:
                lines.append(f"    {path}: {_change(old, new)}")
                shown.append(path)
            if not diff:
                lines.append("    (no visible change)")
        line = signals_line(signals(model, step.state))
        if line:
            lines.append(f"    [signals] {line}")
        previous = current
    if trace.loop is not None:
        lines += _loop_lines(model, trace, previous, full)
    if explain:
        lines += explain_lines(model, shown)
    return "\n".join(lines)


def explain_lines(model: Any, paths: list[str]) -> list[str]:
    """``Fields:`` and one line per field shown (a replica's copies share one), or nothing when
    the model describes none."""
    entries = glossary(model, paths)
    if not entries:
        return []
    return ["Fields:", *(f"    {key}: {text}" for key, text in entries)]


def _loop_lines(model: Any, trace: Trace, last: dict[str, Any] | None, full: bool) -> list[str]:
    """How a lasso goes on forever: the closing step back to the loop's first state, or stuttering."""
    n, back = len(trace.steps), trace.loop + 1
    if trace.loop_action is None:
        return [f"State {n} stutters forever (no fairly scheduled action is enabled): back to state {n}"]
    lines = [f"{trace.loop_action!r}: back to state {back}"]
    target = view(model, trace.steps[trace.loop].state)
    diff = changes(last or {}, target)
    for path, old, new in diff:
        lines.append(f"    {path}: {_change(old, new)}")
    if not diff:
        lines.append("    (no visible change)")
    return lines


def signals_line(sig: dict[str, Any] | None) -> str:
    """One compact line an operator scans down a trace: ``key value`` items joined by `` | ``;
    True shows the key alone (a raised flag), False and empty lists or dicts hide it, a dict
    shows ``k=v k=v``."""
    if not sig:
        return ""
    parts = []
    for key, value in sig.items():
        if value is False or (isinstance(value, dict | list | tuple) and not value):
            continue
        if value is True:
            parts.append(str(key))
        elif isinstance(value, dict):
            parts.append(f"{key} " + " ".join(f"{k}={short(v)}" for k, v in value.items()))
        elif isinstance(value, list | tuple):
            parts.append(f"{key} " + ",".join(short(v) for v in value))
        else:
            parts.append(f"{key} {short(value)}")
    return " | ".join(parts)


def _change(old: Any, new: Any) -> str:
    """``old -> new``; a list that only grew at its end shows just what was appended, because
    request queues and logs grow that way and repeating their whole past hides the step."""
    if isinstance(old, list) and isinstance(new, list) and old and len(new) > len(old) and new[: len(old)] == old:
        return "+= " + ", ".join(short(v) for v in new[len(old):])
    return f"{short(old)} -> {short(new)}"


def render_violation(model: Any, violation: Violation, *, full: bool = False, explain: bool = False) -> str:
    what = {"always": "invariant", "transition": "transition property", "deadlock": "deadlock"}.get(
        violation.kind, violation.kind)
    title = f"{violation.property} ({what}) violated in a trace of {len(violation.trace)} states"
    if violation.trace.loop is not None:
        t = violation.trace
        cycle = len(t) - t.loop
        title = (f"{violation.property} ({what}) violated by a lasso: {t.loop} state(s) of prefix, then a loop "
                 f"of {cycle} state(s) repeated forever")
    trigger = trigger_index(model, violation.property, violation.kind, violation.trace)
    body = render_trace(model, violation.trace, full=full, trigger=trigger)
    where = "on this behaviour" if violation.trace.loop is not None else "here"
    tail = f"\n=> {violation.property} fails {where}" + (f": {violation.detail}" if violation.detail else "")
    glossary_text = "\n".join(explain_lines(model, _paths(model, violation.trace, full))) if explain else ""
    return f"{title}\n{body}{tail}" + (f"\n{glossary_text}" if glossary_text else "")


def render_result(model: Any, result: CheckResult, *, full: bool = False, explain: bool = False) -> str:
    """What ``isrcheck check`` prints for a run: each violation with its trace, then the summary."""
    return "\n\n".join([*(render_violation(model, v, full=full, explain=explain) for v in result.violations),
                        render_summary(result)])


def _paths(model: Any, trace: Trace, full: bool) -> list[str]:
    """The flattened paths a trace's text shows: the first state whole, then what changed."""
    views = [view(model, step.state) for step in trace.steps]
    if not views:
        return []
    paths = list(flatten(views[0]))
    for before, after in zip(views, views[1:], strict=False):
        paths += list(flatten(after)) if full else [p for p, _, _ in changes(before, after)]
    return paths


def render_summary(result: CheckResult) -> str:
    verdict = "no violation" if not result.violations else f"{len(result.violations)} violation(s)"
    if getattr(result, "limit", None) and not result.violations:
        verdict = "no violation so far, no answer"
    if result.complete:
        scope = "complete"
    elif result.interrupted:
        scope = "interrupted"
    elif getattr(result, "limit", None):
        scope = f"stopped at the {result.limit} limit"
    elif result.stats.get("stopped_at_violation"):
        scope = "stopped at the first violation (--continue explores on)"
    else:
        scope = "incomplete"
    lines = [
        f"Model checking {scope}: {verdict}.",
        f"{result.generated_states:,} states generated, {result.distinct_states:,} distinct states found, "
        f"depth {result.depth}.",
        f"{result.elapsed:.2f} s, {result.states_per_second:,.0f} distinct states/s ({result.engine} engine, "
        f"{_processes(result)}{result.store} store).",
    ]
    if result.collision_probability is not None:
        lines.append("Fingerprint collision probability (TLC's optimistic estimate): "
                     f"{result.collision_probability:.1e}")
    if result.stats.get("stop_note"):  # an engine's own account of where it stopped (spark: a whole level)
        lines.append(result.stats["stop_note"])
    if getattr(result, "limit", None):
        lines.append(result.limit_note or f"Stopped at the {result.limit} limit before an answer.")
    elif not result.complete and not result.interrupted and not result.violations:
        lines.append(f"Not complete: stopped at depth {result.stats.get('max_depth')}; "
                     f"{result.stats.get('frontier_left', 0):,} states were left unexpanded.")
    if result.interrupted:
        lines.append("Interrupted: the figures above are what was explored before the interrupt.")
    for name in result.vacuous:
        lines.append(f"Vacuous: 'sometimes' property {name} was never reached, so the run proved nothing about it.")
    reached = [p for p in result.examples]
    if reached:
        lines.append(f"Reached (sometimes): {', '.join(reached)}.")
    return "\n".join(lines)


def _processes(result: Any) -> str:
    workers = result.stats.get("workers") or 1
    return f"{workers} processes, " if workers > 1 else ""
