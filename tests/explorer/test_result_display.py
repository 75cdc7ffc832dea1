"""A result reads well where a user meets it: ``print(result)`` is what ``isrcheck check`` prints,
``print(violation)`` and ``print(trace)`` their text, and in a notebook a result is its HTML report
in an iframe. The renderers install themselves from ``isrcheck.explorer.traces`` into
``isrcheck.explorer.result.RENDERERS`` (the result module is below them and cannot import them)."""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser
from typing import Any

import pytest
from isrcheck.explorer import result as result_module
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.result import CheckResult, Step, Trace, Violation
from isrcheck.explorer.traces.display import report_page
from isrcheck.explorer.traces.text import render_result

import isrcheck
from tests.fixtures.models import Counters, Tick


class _Page(HTMLParser):
    """The tags of a page, every iframe's attributes, and the text of its JSON data script."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.iframes: list[dict[str, str | None]] = []
        self.data: list[str] = []
        self._in_data = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "iframe":
            self.iframes.append(dict(attrs))
        self._in_data = tag == "script" and ("type", "application/json") in attrs

    def handle_endtag(self, tag: str) -> None:
        self._in_data = False

    def handle_data(self, data: str) -> None:
        if self._in_data:
            self.data.append(data)


def _page_data(page: str) -> dict[str, Any]:
    parsed = _Page(page)
    assert {"html", "head", "body", "script"} <= set(parsed.tags)
    return json.loads("".join(parsed.data))


@pytest.fixture(scope="module")
def violated() -> CheckResult:
    return isrcheck.check(Counters(2, 3, bug_at=2), workers=1)


@pytest.fixture(scope="module")
def holds() -> CheckResult:
    return isrcheck.check(Counters(2, 3), workers=1)


def test_print_of_a_violated_result_is_what_the_cli_prints(violated):
    text = str(violated)
    assert text == render_result(violated.model, violated)
    assert "SumBelowBug (invariant) violated in a trace of 3 states" in text
    assert "State 1: initial state\n    c0 = 0\n    c1 = 0" in text  # in the model's words (state_view)
    assert "State 3: Tick(process=0)\n    c0: 1 -> 2" in text
    assert "=> SumBelowBug fails here: sum of counters is 2" in text
    assert "1 violation(s)" in text and "4 distinct states found" in text


def test_print_of_a_holding_result_says_so_with_the_counts(holds):
    text = str(holds)
    assert text.startswith("Model checking complete: no violation.")
    assert "13 states generated, 9 distinct states found, depth 5." in text
    assert "Reached (sometimes): AllAtLimit." in text


def test_repr_stays_one_short_line(violated, holds):
    assert repr(violated) == "<CheckResult 1 violation(s): SumBelowBug; 4 distinct states, depth 3 (incomplete)>"
    assert repr(holds) == "<CheckResult no violation; 9 distinct states, depth 5 (complete)>"


def test_a_violation_and_a_trace_print_their_text(violated):
    violation = violated.violations[0]
    assert violated.model is violation.trace.model is not None
    assert str(violation).startswith("SumBelowBug (invariant) violated in a trace of 3 states\nState 1")
    assert str(violation.trace).splitlines()[-2:] == ["State 3: Tick(process=0)", "    c0: 1 -> 2"]


def test_recording_the_model_changes_no_comparison(violated):
    trace = violated.violations[0].trace
    bare = Trace(trace.steps)
    assert bare == trace and hash(bare) == hash(trace) and bare.model is None
    assert "model" not in repr(trace)


def test_a_result_without_its_model_still_prints():
    """A result built by hand (no model recorded): states show by their own fields."""
    trace = Trace((Step(None, (0, 0)), Step(Tick(1), (0, 1))))
    result = CheckResult(distinct_states=2, generated_states=2, depth=2, complete=False, elapsed=0.0,
                         violations=[Violation("Never", "always", trace)])
    text = str(result)
    assert "Never (invariant) violated in a trace of 2 states" in text
    assert "state: [0, 0] -> [0, 1]" in text
    assert "<iframe" in result._repr_html_()


def test_without_renderers_a_result_prints_one_plain_line(violated, monkeypatch):
    """What result.py does on its own, before isrcheck.explorer.traces installs the renderers."""
    monkeypatch.setattr(result_module, "RENDERERS", {})
    assert str(violated) == "Model checking: 1 violation(s): SumBelowBug; 4 distinct states, depth 3 (incomplete)."
    assert violated._repr_html_() is None
    assert str(violated.violations[0]) == "SumBelowBug (always) violated in a trace of 3 states"
    assert str(violated.violations[0].trace) == "a trace of 3 states"


def test_importing_isrcheck_installs_the_renderers():
    assert set(result_module.RENDERERS) == {"trace", "violation", "result", "result_html"}


def test_a_notebook_shows_the_report_page_in_an_iframe(violated):
    fragment = violated._repr_html_()
    (frame,) = _Page(fragment).iframes
    page = frame["srcdoc"]  # the parser undoes the escaping: what the browser puts in the frame
    assert page == report_page(violated)
    assert html.escape(page, quote=True) in fragment  # escaped whole: no quote ends the attribute early
    assert "height:" in frame["style"] and "width: 100%" in frame["style"]
    data = _page_data(page)
    assert data["header"]["verdict"] == "SumBelowBug violated (3 states)"
    assert data["header"]["model"] == "Counters" and data["header"]["options"] == []
    (trace,) = data["traces"]
    assert [s["action"] for s in trace["steps"]] == ["initial state", "Tick(process=0)", "Tick(process=0)"]


def test_a_holding_result_in_a_notebook(holds):
    data = _page_data(_Page(holds._repr_html_()).iframes[0]["srcdoc"])
    assert data["header"]["tone"] == "good"
    assert [t["name"] for t in data["traces"]] == ["AllAtLimit"]  # the sometimes example


def test_a_model_that_draws_its_states_shows_its_pictures():
    """The classic model has ``picture``: the notebook's page draws each state, as --html does."""
    result = isrcheck.check(build_model("classic", {"generation": "kip101"}), properties=["StrongIsr"], workers=1)
    assert "StrongIsr (invariant) violated" in str(result)
    data = _page_data(_Page(result._repr_html_()).iframes[0]["srcdoc"])
    (trace,) = data["traces"]
    assert all("picture" in step for step in trace["steps"])
    assert data["header"]["model"] == "ReplicationModel"
    assert ["configuration", repr(result.model)] in data["header"]["counts"]
