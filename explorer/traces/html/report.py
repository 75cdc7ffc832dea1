"""The HTML trace report's data: every state of a trace as a person looks at it.

Generic: for any model, each step carries the action, the state's named fields (``state_view``,
flattened as the text trace flattens them), the fields that changed since the previous step (the
very list the text trace prints, from ``isrcheck.explorer.traces.views.changes``) and the operator signals line.
A model that draws itself (the optional ``picture`` hook of ``isrcheck.explorer.contract``) adds a picture:
lanes of cells with marks between them, tags and facts, which this module normalises (so the page's
script can trust its shape) and diffs against the previous step's picture (so what changed is
highlighted in the picture too). The named focus of a violation (records, offsets) comes from the
model's picture of the failing state, which is the only one called with the property's detail.

Counts for the header come from ``CheckResult`` (``levels``: distinct states per BFS depth, drawn
as a small chart). ``isrcheck.explorer.traces.html`` turns the data into one self-contained page.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from isrcheck.explorer.contract import signals
from isrcheck.explorer.errors import ContractError, UserError
from isrcheck.explorer.registry import load_factory, model_options
from isrcheck.explorer.result import CheckResult, Trace
from isrcheck.explorer.traces.glossary import describer
from isrcheck.explorer.traces.text import signals_line
from isrcheck.explorer.traces.trigger import trigger_index
from isrcheck.explorer.traces.views import changes, flatten, short, view

FORMAT = 1  # bumped when the page's data shape changes


# -- pictures: the optional model hook, checked and normalised ----------------------------------------

def picture_hook(model: Any) -> Callable[..., Any] | None:
    fn = getattr(model, "picture", None)
    return fn if callable(fn) else None


def _takes_detail(fn: Callable[..., Any]) -> bool:
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    except (TypeError, ValueError):
        return False
    return len(params) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


def _tag(value: Any, where: str) -> dict[str, Any]:
    if isinstance(value, str):
        return {"text": value}
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        out = {"text": value["text"]}
        if value.get("tone"):
            out["tone"] = str(value["tone"])
        return out
    raise ContractError(f"picture(): {where} must be a string or {{'text': str, 'tone': str}}, not {value!r:.80}")


def _int_or_none(value: Any, where: str) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ContractError(f"picture(): {where} must be an int or None, not {value!r:.80}")


def normalise_picture(pic: Any) -> dict[str, Any]:
    """A clean copy of a model's picture with only the documented keys; a wrong shape is a
    ContractError naming the field, so a broken hook fails here and not in the reader's browser."""
    if not isinstance(pic, dict) or not isinstance(pic.get("lanes", []), list):
        raise ContractError(f"picture() must return a dict with a list under 'lanes', not {pic!r:.80}")
    lanes = []
    for i, lane in enumerate(pic.get("lanes", [])):
        where = f"lanes[{i}]"
        if not isinstance(lane, dict) or not isinstance(lane.get("name"), str):
            raise ContractError(f"picture(): {where} must be a dict with a string 'name'")
        cells = []
        for j, cell in enumerate(lane.get("cells", [])):
            if not isinstance(cell, dict):
                raise ContractError(f"picture(): {where}.cells[{j}] must be a dict")
            c: dict[str, Any] = {"text": str(cell.get("text", "")), "top": str(cell.get("top", j))}
            color = _int_or_none(cell.get("color"), f"{where}.cells[{j}].color")
            if color is not None:
                c["color"] = color
            for key in ("key", "hint", "tone"):
                if cell.get(key) is not None:
                    c[key] = str(cell[key])
            if cell.get("tick"):
                c["tick"] = True
            cells.append(c)
        marks = []
        for j, mark in enumerate(lane.get("marks", [])):
            if not isinstance(mark, dict) or not isinstance(mark.get("name"), str):
                raise ContractError(f"picture(): {where}.marks[{j}] must be a dict with a string 'name'")
            marks.append({"name": mark["name"], "at": _int_or_none(mark.get("at"), f"{where}.marks[{j}].at")})
        lanes.append({"name": lane["name"], "tags": [_tag(t, f"{where}.tags") for t in lane.get("tags", [])],
                      "cells": cells, "marks": [m for m in marks if m["at"] is not None], "dim": bool(lane.get("dim"))})
    facts = []
    for i, fact in enumerate(pic.get("facts", [])):
        if not isinstance(fact, dict) or not isinstance(fact.get("label"), str):
            raise ContractError(f"picture(): facts[{i}] must be a dict with a string 'label'")
        value = fact.get("value", "")
        items = value if isinstance(value, list) else [value]
        facts.append({"label": fact["label"], "items": [_tag(v if isinstance(v, dict) else str(v), f"facts[{i}]")
                                                         for v in items]})
    legend = {str(k): str(v) for k, v in (pic.get("legend") or {}).items()}
    out: dict[str, Any] = {"lanes": lanes, "facts": facts, "legend": legend}
    focus = pic.get("focus")
    if focus:
        out["focus"] = {
            "keys": [str(k) for k in focus.get("keys", [])],
            "offsets": [int(o) for o in focus.get("offsets", [])],
            "missing": [{"lane": int(m["lane"]), "at": _int_or_none(m.get("at"), "focus.missing.at"),
                         "text": str(m.get("text", ""))} for m in focus.get("missing", [])],
        }
    return out


def swimlane_of(model: Any, trace: Trace) -> dict[str, Any] | None:
    """The whole trace as a space-time view, from the model's optional ``swimlanes()`` and
    ``swimlane(action, before, after)`` hooks (``isrcheck.explorer.contract``): the lanes, then one
    event per step (None for the initial state). A lane an event names must be one of the lanes."""
    lanes_fn, event_fn = getattr(model, "swimlanes", None), getattr(model, "swimlane", None)
    if not callable(lanes_fn) or not callable(event_fn):
        return None
    lanes = [str(x) for x in lanes_fn()]
    known = set(lanes)

    def lane(value: Any, where: str) -> str:
        if not isinstance(value, str) or value not in known:
            raise ContractError(f"swimlane(): {where} {value!r:.60} is not one of swimlanes() {lanes}")
        return value

    events: list[dict[str, Any] | None] = [None]
    for i in range(1, len(trace.steps)):
        step = trace.steps[i]
        ev = event_fn(step.action, trace.steps[i - 1].state, step.state)
        if not isinstance(ev, dict):
            raise ContractError(f"swimlane() must return a dict, not {ev!r:.80}")
        at = lane(ev.get("lane"), f"step {i + 1}'s lane")
        events.append({
            "lane": at, "label": str(ev.get("label", "")),
            "send": [{"id": str(m["id"]), "label": str(m.get("label", m["id"])),
                      "from": lane(m.get("from", at), f"step {i + 1}'s send from")} for m in ev.get("send", [])],
            "receive": [str(r) for r in ev.get("receive", [])],
            "arrows": [{"from": lane(a["from"], f"step {i + 1}'s arrow from"),
                        "to": lane(a["to"], f"step {i + 1}'s arrow to"), "label": str(a.get("label", ""))}
                       for a in ev.get("arrows", [])],
        })
    return {"lanes": lanes, "events": events}


def _unflagged(cell: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in cell.items() if k != "changed"}


def mark_changes(before: dict[str, Any] | None, after: dict[str, Any]) -> None:
    """Flag in ``after`` what differs from ``before``: cells (by lane name and position), marks that
    moved, new tags and facts; cells a lane lost (a truncation) are listed under ``removed``."""
    if before is None:
        return
    old_lanes = {lane["name"]: lane for lane in before["lanes"]}
    for lane in after["lanes"]:
        old = old_lanes.get(lane["name"])
        if old is None:
            lane["changed"] = True
            continue
        for i, cell in enumerate(lane["cells"]):
            if i >= len(old["cells"]) or _unflagged(old["cells"][i]) != _unflagged(cell):
                cell["changed"] = True
        removed = [{"at": i, "text": c["text"]} for i, c in enumerate(old["cells"]) if i >= len(lane["cells"])]
        if removed:
            lane["removed"] = removed
        old_marks = {m["name"]: m["at"] for m in old["marks"]}
        for mark in lane["marks"]:
            if old_marks.get(mark["name"]) != mark["at"]:
                mark["changed"] = True
        old_tags = [t["text"] for t in old["tags"]]
        for tag in lane["tags"]:
            if tag["text"] not in old_tags:
                tag["changed"] = True
    old_facts = {f["label"]: [i["text"] for i in f["items"]] for f in before["facts"]}
    for fact in after["facts"]:
        previous = old_facts.get(fact["label"], [])
        for item in fact["items"]:
            if item["text"] not in previous:
                item["changed"] = True


# -- traces ----------------------------------------------------------------------------------------

def trace_entry(model: Any, trace: Trace, *, name: str, kind: str = "", detail: str = "",
                fail_index: int | None = None, loop: int | None = None, loop_action: str | None = None,
                title: str = "", trigger: int | None = None) -> dict[str, Any]:
    """One trace of the report. ``fail_index`` (0-based, default the last state) is the state the
    property fails in: only its picture is asked to mark what ``detail`` names. A lasso has ``loop``
    (0-based), the state its last state goes back to by ``loop_action`` (the action's text; None
    with ``loop`` the last index: the last state stutters forever); a leads-to lasso has
    ``trigger`` (0-based), the state where its trigger held and its target never holds after."""
    draw = picture_hook(model)
    with_detail = draw is not None and _takes_detail(draw)
    failing = len(trace) - 1 if fail_index is None else fail_index
    steps = []
    previous_view: dict[str, Any] | None = None
    previous_picture: dict[str, Any] | None = None
    for index, step in enumerate(trace.steps):
        current = view(model, step.state)
        entry: dict[str, Any] = {
            "action": "initial state" if step.action is None else repr(step.action),
            "fields": [[path, short(value)] for path, value in flatten(current).items()],
        }
        if previous_view is not None:
            entry["changed"] = [[path, short(old), short(new)] for path, old, new in changes(previous_view, current)]
        line = signals_line(signals(model, step.state))
        if line:
            entry["signals"] = line
        if draw is not None:
            note = detail if (index == failing and detail and kind != "deadlock") else ""
            pic = normalise_picture(draw(step.state, note) if (note and with_detail) else draw(step.state))
            mark_changes(previous_picture, pic)
            entry["picture"] = pic
            previous_picture = pic
        steps.append(entry)
        previous_view = current
    swim = swimlane_of(model, trace)
    describe = describer(model)
    paths = dict.fromkeys(path for entry in steps for path, _ in entry["fields"])
    docs = {path: text for path in paths if (text := describe(path))}
    out = {"name": name, "title": title or name, "kind": kind, "detail": detail, "fail": failing if kind else None,
           "loop": loop, "trigger": trigger, "steps": steps, "docs": docs}
    if swim is not None:
        out["swim"] = swim
    if loop is not None:
        out["lasso"] = _closing_step(model, trace, loop, loop_action, previous_view, previous_picture)
    return out


def _closing_step(model: Any, trace: Trace, loop: int, action: str | None, last_view: dict[str, Any] | None,
                  last_picture: dict[str, Any] | None) -> dict[str, Any]:
    """The step that closes a lasso (last state -> state ``loop``), with its own changes and
    picture, so following the loop highlights what that step changes rather than what the loop
    state's first arrival did."""
    target = trace.steps[loop].state
    target_view = view(model, target)
    closing: dict[str, Any] = {
        "action": action, "stutters": action is None and loop == len(trace) - 1,
        "changed": [[path, short(old), short(new)] for path, old, new in changes(last_view or {}, target_view)],
    }
    draw = picture_hook(model)
    if draw is not None:
        pic = normalise_picture(draw(target))
        mark_changes(last_picture, pic)
        closing["picture"] = pic
    return closing


def lasso_of(trace: Trace) -> tuple[int | None, str | None]:
    """(loop index, closing action's text) of a lasso trace (liveness), or (None, None)."""
    loop = getattr(trace, "loop", None)
    if not isinstance(loop, int) or isinstance(loop, bool):
        return None, None
    action = getattr(trace, "loop_action", None)
    return loop, None if action is None else repr(action)


def _what(kind: str) -> str:
    return {"always": "invariant", "transition": "transition property", "deadlock": "deadlock",
            "eventually": "liveness property", "leads-to": "liveness property"}.get(kind, kind)


def _violation_title(v: Any) -> str:
    loop, _ = lasso_of(v.trace)
    if loop is None:
        return f"{v.property} ({_what(v.kind)}) violated in a trace of {len(v.trace)} states"
    return (f"{v.property} ({_what(v.kind)}) violated by a lasso: {loop} state(s) of prefix, then a loop of "
            f"{len(v.trace) - loop} state(s) repeated forever")


def traces_of(model: Any, result: CheckResult) -> list[dict[str, Any]]:
    """The violations of a run, then a shortest example of each ``sometimes`` property reached."""
    out = []
    for v in result.violations:
        loop, loop_action = lasso_of(v.trace)
        out.append(trace_entry(model, v.trace, name=v.property, kind=v.kind, detail=v.detail, loop=loop,
                               loop_action=loop_action, title=_violation_title(v),
                               trigger=trigger_index(model, v.property, v.kind, v.trace)))
    for prop, trace in result.examples.items():
        out.append(trace_entry(model, trace, name=prop, title=f"{prop} (sometimes) reached in {len(trace)} states"))
    return out


# -- the header --------------------------------------------------------------------------------------

def _options_list(options: dict[str, Any] | None) -> list[str]:
    """None: the options are not known (a model built in Python, not named on the command line)."""
    if options is None:
        return []
    return [f"{k}={short(v)}" for k, v in options.items()]


def option_values(model_name: str, options: dict[str, Any] | None,
                  trusted: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the options set to something else than the factory's default, every other option with its
    default): a page attached to a bug report names the whole configuration. A model the registry
    cannot load (a file that moved) shows its given options only. ``trusted=False`` (a model name
    read from a trace file): only a registered model's factory is looked at, never a file
    imported, since a trace file must not make isrcheck run code."""
    from isrcheck.explorer.registry import is_file_spec

    if options is None:
        return {}, {}
    if not trusted and is_file_spec(model_name):
        return dict(options), {}
    try:
        defaults = {opt.name: opt.default for opt in model_options(load_factory(model_name))}
    except (UserError, ImportError, OSError):
        return dict(options), {}
    given = {k: v for k, v in options.items() if k not in defaults or defaults[k] != v}
    return given, {k: v for k, v in defaults.items() if k not in given}


def header(*, model_name: str, options: dict[str, Any] | None, properties: Sequence[str], verdict: str, tone: str,
           counts: list[tuple[str, str]] | None = None, levels: Sequence[int] = (),
           scenario: dict[str, str] | None = None, command: str = "", trusted: bool = True) -> dict[str, Any]:
    given, defaults = option_values(model_name, options, trusted)
    shown = _options_list(given) or ([] if options is None or defaults else ["(the model's defaults)"])
    return {"model": model_name, "options": shown, "defaults": _options_list(defaults), "properties": list(properties),
            "verdict": verdict, "tone": tone, "counts": [list(c) for c in counts or []], "levels": list(levels),
            "scenario": scenario, "command": command}


def run_header(result: CheckResult, *, model_name: str, options: dict[str, Any] | None,
               scenario: dict[str, str] | None = None, command: str = "",
               notes: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """The header of a check: verdict and TLC-style counts of ``result``, then ``notes`` (label, text)."""
    if result.violations:
        verdict = "; ".join(f"{v.property} violated ({len(v.trace)} states)" for v in result.violations)
        tone = "bad"
    elif result.vacuous:
        verdict, tone = f"vacuous: {', '.join(result.vacuous)} never reached", "bad"
    elif result.complete:
        verdict, tone = "no violation: every reachable state checked", "good"
    elif result.interrupted:
        verdict, tone = "interrupted before an answer", "warn"
    else:
        verdict, tone = f"no violation up to depth {result.depth} (incomplete)", "warn"
    counts = [
        ("distinct states", f"{result.distinct_states:,}"),
        ("generated states", f"{result.generated_states:,}"),
        ("depth", str(result.depth)),
        ("time", f"{result.elapsed:.2f} s ({result.engine} engine)"),
    ]
    if result.stats.get("stopped_at_violation"):
        counts.append(("scope", "stopped at the first violation"))
    counts += list(notes)
    return header(model_name=model_name, options=options, properties=result.properties, verdict=verdict, tone=tone,
                  counts=counts, levels=result.levels, scenario=scenario, command=command)


def report(head: dict[str, Any], traces: list[dict[str, Any]], *, title: str) -> dict[str, Any]:
    return {"format": FORMAT, "title": title, "header": head, "traces": traces}


def check_report(model: Any, result: CheckResult, *, model_name: str, options: dict[str, Any] | None,
                 scenario: dict[str, str] | None = None, command: str = "",
                 notes: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """The whole report of one ``isrcheck.explorer.check`` run."""
    head = run_header(result, model_name=model_name, options=options, scenario=scenario, command=command,
                      notes=notes)
    title = f"{scenario['id']}: {scenario['title']}" if scenario else f"isrcheck {model_name}: {head['verdict']}"
    return report(head, traces_of(model, result), title=title)
