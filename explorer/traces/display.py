"""How a result reads where a user meets it: ``print(result)``, ``print(violation)``,
``print(trace)``, and a notebook's output cell.

``isrcheck.explorer.result`` sits below the renderers and cannot import them, so it declares a
table of them (``isrcheck.explorer.result.RENDERERS``) and this module fills it in: ``install`` runs
when ``isrcheck.explorer.traces`` is imported, which ``isrcheck.explorer`` (and so
``import isrcheck``) does.

In a notebook the result is its HTML report (``isrcheck.explorer.traces.html.report.check_report``
rendered by ``isrcheck.explorer.traces.html.render``), the same page ``isrcheck check --html``
writes. The page is self-contained, so it goes whole into an ``<iframe srcdoc>``: its stylesheet
and script stay inside the frame, untouched by the notebook's and touching nothing of it.
"""

from __future__ import annotations

import html
from typing import Any

from isrcheck.explorer import result as _result
from isrcheck.explorer.result import CheckResult
from isrcheck.explorer.traces.html import render
from isrcheck.explorer.traces.html.report import check_report
from isrcheck.explorer.traces.text import render_result, render_trace, render_violation

FRAME_HEIGHT = 640  # pixels: the header and a trace's first steps; the frame scrolls for the rest


def configuration(model: Any) -> str:
    """The model's own repr when it is a telling one (the classic model's names its generation and
    bounds), else ""."""
    text = repr(model)
    return "" if model is None or type(model).__repr__ is object.__repr__ or " at 0x" in text else text


def report_page(result: CheckResult) -> str:
    """The HTML report page of ``result``, as ``isrcheck check --html`` writes it. A model built in
    Python has no registry name nor options to show: its class names it, its repr (when telling)
    says how it was built."""
    model = result.model
    built = configuration(model)
    data = check_report(model, result, model_name=type(model).__name__ if model is not None else "model",
                        options=None, notes=[("configuration", built)] if built else ())
    return render(data)


def notebook_html(result: CheckResult) -> str:
    """``result``'s report page in an iframe, for a notebook's output cell."""
    page = html.escape(report_page(result), quote=True)
    return (f'<iframe srcdoc="{page}" title="isrcheck report" '
            f'style="width: 100%; height: {FRAME_HEIGHT}px; border: 1px solid #ccc;"></iframe>')


def _result_text(result: CheckResult) -> str:
    return render_result(result.model, result)


def install() -> None:
    """Make results, violations and traces render through this package."""
    _result.RENDERERS.update(trace=render_trace, violation=render_violation, result=_result_text,
                             result_html=notebook_html)
