"""``isrcheck.assert_holds``: a model check as a pytest assertion.

It runs ``isrcheck.check`` and returns the result when every checked property holds. When one
fails, it writes the shortest counterexample as test artifacts (an ITF JSON trace and the HTML
report page, under ``--isrcheck-artifacts``, one folder per test) and raises ``PropertyFailed``
(an ``AssertionError``) whose message is the trace as ``isrcheck check`` prints it, with the two
paths. The pytest plugin (``isrcheck.pytest_plugin``) sets the engine, workers and depth bound
from the command line (``--isrcheck-engine``, ``--isrcheck-workers``, ``--isrcheck-max-depth``)
and the current test's folder; outside pytest the defaults below apply and artifacts go to a
temporary folder. docs/properties-own.md shows it on the Kafka model.

Abstracted away: nothing; this module only connects the checker to pytest's way of failing.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from isrcheck.explorer.check import check
from isrcheck.explorer.errors import ModelError, UserError
from isrcheck.explorer.extra import WithProperties, with_properties
from isrcheck.explorer.outputs import write_atomically
from isrcheck.explorer.progress import Silent
from isrcheck.explorer.registry import build_model, portable_spec
from isrcheck.explorer.result import CheckResult, Trace, Violation


class PropertyFailed(AssertionError):
    """A property failed under ``assert_holds``: the message is the rendered trace; ``result`` is
    the run's ``CheckResult`` and ``artifacts`` the files written."""

    def __init__(self, message: str, result: CheckResult, artifacts: Sequence[Path]) -> None:
        super().__init__(message)
        self.result = result
        self.artifacts = tuple(artifacts)


@dataclass
class Settings:
    """What the pytest plugin sets (``--isrcheck-*``); plain Python calls use the defaults: the
    local engine in one process (a test suite runs many small checks), no depth bound."""

    engine: str = "local"
    workers: int | None = 1
    max_depth: int | None = None
    artifacts: Path | None = None  # None: a temporary folder per failure
    test: str = ""  # the running test's node id: its artifacts' folder
    engine_options: dict[str, Any] = field(default_factory=dict)


SETTINGS = Settings()


def _folder(prop: str) -> Path:
    if SETTINGS.artifacts is None:
        return Path(tempfile.mkdtemp(prefix="isrcheck-"))
    test = re.sub(r"[^\w.-]+", "_", SETTINGS.test).strip("_") or "outside-a-test"
    folder = SETTINGS.artifacts / test
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _write_artifacts(model: Any, result: CheckResult, v: Violation, spec: str, options: dict[str, Any]) -> list[Path]:
    from isrcheck.explorer.traces.html import render
    from isrcheck.explorer.traces.html.report import check_report
    from isrcheck.explorer.traces.itf import SCHEMA_VERSION, trace_to_itf

    folder = _folder(v.property)
    stem = re.sub(r"\W+", "_", v.property) or "property"
    itf, html = folder / f"{stem}.itf.json", folder / f"{stem}.html"
    meta = {"schema_version": SCHEMA_VERSION, "model": portable_spec(spec, str(folder)) if spec else repr(model),
            "options": options, "property": v.property, "kind": v.kind, "detail": v.detail}
    source = _properties_file(model)
    if source:  # replay says which file to pass with --properties (isrcheck.explorer.traces.replay)
        meta["properties_file"] = portable_spec(source, str(folder))
    write_atomically(itf, json.dumps(trace_to_itf(model, v.trace, meta), indent=1) + "\n")
    write_atomically(html, render(check_report(model, result, model_name=spec or type(model).__name__,
                                               options=options)))
    return [itf, html]


def _properties_file(model: Any) -> str | None:
    """The one file the model's added properties come from, when there is one: a ``--properties``
    file, or the module that defines every added property at its top level."""
    if not isinstance(model, WithProperties):
        return None
    if model.source:
        return model.source
    files = set()
    for p in model.extra:
        fn = getattr(p, "fn", None)
        module = sys.modules.get(getattr(fn, "__module__", ""))
        if module is None or getattr(module, getattr(fn, "__qualname__", ""), None) is not p:
            return None
        files.add(getattr(module, "__file__", None))
    return files.pop() if len(files) == 1 and None not in files else None


def assert_holds(model: Any, properties: Sequence[str] | None = None, *, options: dict[str, Any] | None = None,
                 extra_properties: Iterable[Any] = (), engine: str | None = None, workers: int | None = None,
                 max_depth: int | None = None, symmetry: bool = False, **check_options: Any) -> CheckResult:
    """Check ``model`` (a model, or a spec such as ``"classic"`` built with ``options``) and
    return the result; raise ``PropertyFailed`` with the shortest trace when a property fails
    (or a ``sometimes`` property is never reached). ``properties``: names to check (default: the
    model's defaults and every one of ``extra_properties``, which are added to the model as
    ``isrcheck.with_properties`` adds them). ``engine``, ``workers``, ``max_depth`` override the
    plugin's ``--isrcheck-*`` options; other keywords go to ``isrcheck.check``."""
    __tracebackhide__ = True  # pytest shows the test's line and the trace, not isrcheck's frames
    spec = model if isinstance(model, str) else ""
    if spec:
        model = build_model(spec, options)
    elif options:
        raise UserError("assert_holds: options= goes with a model spec (assert_holds('classic', options={...})); "
                        "a model object is built already")
    extra = list(extra_properties)
    if extra:
        model = with_properties(model, extra)
    engine = engine or SETTINGS.engine
    local = engine == "local"
    try:
        result = check(model, properties=properties, engine=engine, symmetry=symmetry,
                       max_depth=max_depth if max_depth is not None else SETTINGS.max_depth,
                       workers=(workers if workers is not None else SETTINGS.workers) if local else None,
                       progress=Silent(), **({**SETTINGS.engine_options, **check_options}))
    except ModelError as exc:
        if isinstance(exc.cause, UserError):
            raise exc.cause from None
        raise
    if not result.violations and not result.vacuous:
        return result
    parts, written = [], []
    for v in result.violations:
        paths = _write_artifacts(model, result, v, spec, dict(options or {}))
        written += paths
        parts.append(_failure_text(model, v, paths))
    for name in result.vacuous:
        parts.append(f"{name} (sometimes) never held in any reachable state: the check proved nothing about it")
    raise PropertyFailed("\n\n".join(parts), result, written)


def _failure_text(model: Any, v: Violation, paths: Sequence[Path]) -> str:
    from isrcheck.explorer.traces.text import render_violation

    return f"{render_violation(model, v)}\n\nITF trace: {paths[0]}\nHTML report: {paths[1]}"


def assert_trace_holds(model: Any, trace: Trace, prop: str, *, spec: str = "",
                       options: dict[str, Any] | None = None, note: str = "") -> None:
    """``prop`` holds along ``trace`` (a replayed path, as ``--regression`` files replay theirs), or
    ``PropertyFailed`` with the trace up to the failing state, rendered and written as artifacts
    as ``assert_holds`` writes them; ``note`` ends the message (what to do next)."""
    __tracebackhide__ = True
    from isrcheck.explorer.traces.replay import evaluate

    failed = [(name, index, detail) for name, index, detail in evaluate(model, trace, [prop]).violated]
    if not failed:
        return
    _, index, detail = failed[0]
    kind = next(p.kind.value for p in model.properties() if p.name == prop)
    shown = Trace(trace.steps[:index], model=trace.model) if trace.loop is None else trace
    v = Violation(prop, kind, shown, detail)
    result = CheckResult(distinct_states=len(shown), generated_states=len(shown), depth=len(shown), complete=False,
                         violations=[v], elapsed=0.0, engine="replay", properties=[prop])
    paths = _write_artifacts(model, result, v, spec, dict(options or {}))
    raise PropertyFailed(_failure_text(model, v, paths) + (f"\n\n{note}" if note else ""), result, paths)
