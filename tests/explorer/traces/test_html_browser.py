"""The HTML trace report as a person sees it: Debian's chromium, headless, driven by Playwright.

These tests fail (never skip) when chromium or Playwright is missing: ``./dev test`` installs both,
and a report nobody has looked at in a browser is not tested. The rest of the suite does not need
them (``-m "not browser"`` leaves these out). One browser serves the whole module."""

from __future__ import annotations

import base64

import pytest
from isrcheck.explorer.check import check
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import get_scenario
from isrcheck.explorer.traces.html import browser as chromium
from isrcheck.explorer.traces.html import render
from isrcheck.explorer.traces.html.report import check_report, header, report, trace_entry
from isrcheck.explorer.traces.views import changes, view

from tests.fixtures.models import Counters

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    reason = chromium.available()
    if reason:
        pytest.fail(f"the browser tests need chromium and Playwright: {reason}")
    with chromium.chromium() as b:
        yield b


def scenario_page(tmp_path_factory, scenario_id: str):
    sc = get_scenario(scenario_id)
    model = build_model(sc.model, dict(sc.options))
    result = check(model, properties=list(sc.properties), **dict(sc.check_options))
    path = tmp_path_factory.mktemp("html") / f"{scenario_id}.html"
    path.write_text(render(check_report(model, result, model_name=sc.model, options=dict(sc.options),
                                        scenario={"id": sc.id, "title": sc.title, "story": sc.story})))
    return path, model, result.violations[0]


@pytest.fixture(scope="module")
def k1(tmp_path_factory):
    return scenario_page(tmp_path_factory, "K1")


@pytest.fixture(scope="module")
def k8(tmp_path_factory):
    return scenario_page(tmp_path_factory, "K8")


def step_of(page) -> int:
    return int(page.get_attribute("body", "data-step"))


def highlighted(page) -> list[str]:
    return page.eval_on_selector_all("#fields tr.changed", "rows => rows.map(r => r.dataset.path)")


def test_k1_one_step_per_state_and_the_arrow_key_shows_each_change_the_trace_names(browser, k1):
    path, model, violation = k1
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    states = violation.trace.states
    assert page.locator("#timeline li").count() == len(states) == 10
    # The page opens at the violating state, and its address names it.
    assert page.get_attribute("#slider", "max") == "10" and step_of(page) == 9
    assert page.evaluate("location.hash") == "#state=10"
    page.keyboard.press("Home")
    assert step_of(page) == 0 and highlighted(page) == []
    views = [view(model, s) for s in states]
    for i in range(1, len(states)):
        page.keyboard.press("ArrowRight")
        assert step_of(page) == i
        assert page.inner_text("#action code") == repr(violation.trace.steps[i].action)
        assert highlighted(page) == [p for p, _, _ in changes(views[i - 1], views[i])], f"state {i + 1}"
        if i == 5:  # LeaderWrite: record 0 appears at offset 0 of replica 1, the one changed cell
            assert page.locator("g.cell.changed").count() == 1
            assert page.locator('.lane[data-lane="replica 1"] g.cell.changed[data-offset="0"]').count() == 1
    # The last step truncated replica 2's copy away: drawn struck through where it was.
    assert page.locator('.lane[data-lane="replica 2"] g.removed[data-offset="0"]').count() == 1
    assert "StrongIsr fails here" in page.inner_text("#failure")
    page.keyboard.press("ArrowRight")  # no loop: the last state stays
    assert step_of(page) == 9
    page.keyboard.press("Home")
    assert step_of(page) == 0 and page.inner_text("#failure") == ""
    page.click("#next")
    page.click("#next")
    assert step_of(page) == 2
    page.eval_on_selector("#slider", "el => { el.value = '7'; el.dispatchEvent(new Event('input')); }")
    assert step_of(page) == 6 and page.locator("#timeline li.current .n").inner_text() == "7"
    assert requests == [path.as_uri()], "the report fetched something besides itself"
    page.close()


def test_k8_marks_the_lost_acknowledged_record(browser, k8):
    path, _, _ = k8
    page = chromium.open_report(browser, path)
    page.keyboard.press("End")
    assert step_of(page) == 8
    assert "AckedRecordNotLost fails here" in page.inner_text("#failure")
    lost = page.locator('.lane[data-lane="replica 2"] .lost')
    assert lost.count() == 1 and "record 0 lost at replica 2" in lost.text_content()
    assert lost.get_attribute("data-offset") == "0"
    # The record itself, on the stopped broker, is outlined; the new leader has no cell at all.
    assert page.locator('.lane[data-lane="replica 1"] g.cell.focus[data-key="record 0"]').count() == 1
    assert page.locator('.lane[data-lane="replica 2"] g.cell').count() == 0
    assert page.locator('.lane[data-lane="replica 1"].dim .tag.bad').inner_text() == "stopped"
    # The record is followed through the trace; the loss is marked only where the property fails.
    page.keyboard.press("ArrowLeft")
    assert page.locator(".lost").count() == 0
    assert page.locator('g.cell.focus[data-key="record 0"]').count() == 1
    page.close()


def pixel_spread(browser, png: bytes) -> dict:
    """Variance and distinct grey levels of a PNG, decoded by the browser's own canvas."""
    page = browser.new_page()
    out = page.evaluate("""async (b64) => {
        const img = new Image(); img.src = 'data:image/png;base64,' + b64; await img.decode();
        const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
        const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0);
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        let n = 0, s = 0, s2 = 0; const levels = new Set();
        for (let i = 0; i < d.length; i += 4) { const v = (d[i] + d[i + 1] + d[i + 2]) / 3; s += v; s2 += v * v; n++;
                                                levels.add(Math.round(v)); }
        const m = s / n; return {variance: s2 / n - m * m, levels: levels.size, width: img.width};
    }""", base64.b64encode(png).decode())
    page.close()
    return out


def test_a_screenshot_of_the_picture_is_not_blank(browser, k8):
    path, _, _ = k8
    page = chromium.open_report(browser, path, width=1000, height=700)
    page.keyboard.press("End")
    whole = pixel_spread(browser, page.screenshot())
    lanes = pixel_spread(browser, page.locator("#lanes").screenshot())
    page.close()
    assert whole["width"] == 1000 and whole["variance"] > 100 and whole["levels"] > 20
    assert lanes["variance"] > 100 and lanes["levels"] > 20


def lasso_page(tmp_path, loop: int, loop_action: str | None):
    """A report of Counters(1 counter, 0..3) drawn as a lasso (the loop is made up: the page only
    needs its shape), with the generic table since Counters draws no picture."""
    model = Counters(n=1, limit=4)
    trace = check(model).examples["AllAtLimit"]
    entry = trace_entry(model, trace, name="Cycle", kind="eventually", detail="never settles", loop=loop,
                        loop_action=loop_action)
    path = tmp_path / f"lasso-{loop}.html"
    path.write_text(render(report(header(model_name="counters", options={}, properties=["Cycle"], verdict="-",
                                         tone="bad"), [entry], title="lasso")))
    return path


def test_a_lasso_goes_back_to_its_loop(browser, tmp_path):
    page = chromium.open_report(browser, lasso_page(tmp_path, 1, "Reset(to=1)"))
    assert page.locator("#timeline li").count() == 4 and page.locator("#timeline li.in-loop").count() == 3
    page.keyboard.press("End")
    assert "Reset(to=1) goes back to state 2" in page.inner_text("#loopnote")
    assert "Cycle fails on this behaviour" in page.inner_text("#failure")
    assert page.locator(".lane").count() == 0 and highlighted(page) == ["c0"]  # the generic table
    page.keyboard.press("ArrowRight")  # follows the loop: the closing step's own change, 3 -> 1
    assert step_of(page) == 1 and page.get_attribute("body", "data-via") == "loop"
    assert page.inner_text("#action code") == "Reset(to=1)"
    assert page.inner_text("#fields tr.changed td:nth-child(2)") == "3 \u2192 1"
    page.keyboard.press("ArrowRight")  # and on round the loop as before
    assert step_of(page) == 2 and page.get_attribute("body", "data-via") == ""
    assert page.inner_text("#fields tr.changed td:nth-child(2)") == "1 \u2192 2"
    page.close()


def test_a_lasso_that_stutters_stays(browser, tmp_path):
    page = chromium.open_report(browser, lasso_page(tmp_path, 3, None))
    page.keyboard.press("End")
    assert "stutters forever" in page.inner_text("#loopnote") and page.is_disabled("#next")
    page.keyboard.press("ArrowRight")
    assert step_of(page) == 3
    page.close()


def test_a_state_link_opens_that_state_and_every_field_says_what_it_means(browser, k1):
    path, model, violation = k1
    page = chromium.open_report(browser, str(path) + "#state=3")
    assert step_of(page) == 2 and page.inner_text("#action code") == repr(violation.trace.steps[2].action)
    page.keyboard.press("ArrowRight")
    assert page.evaluate("location.hash") == "#state=4"
    # A link followed inside the page moves there.
    page.evaluate("location.hash = '#state=7'")
    page.wait_for_function("document.body.dataset.step === '6'")
    # A link past the end opens where the property fails.
    page.close()
    page = chromium.open_report(browser, str(path) + "#state=99")
    assert step_of(page) == 9
    docs = page.eval_on_selector_all("#fields tr", "rows => rows.map(r => [r.dataset.path, r.cells[2].textContent])")
    assert docs and all(text for _, text in docs), [p for p, text in docs if not text]
    assert dict(docs)["replicaState.2.hw"].startswith("the replica's high watermark")
    # The header names every option: the one set, then the defaults (muted).
    assert page.locator(".options code.default").count() > 10
    assert "replicas=2" in page.inner_text(".options")
    page.close()


def test_a_kraft_page_draws_brokers_and_the_controller_and_marks_the_missing_commit(browser, tmp_path_factory):
    path, _, violation = scenario_page(tmp_path_factory, "K7")
    page = chromium.open_report(browser, path)
    assert step_of(page) == len(violation.trace) - 1  # opens where the property fails
    names = page.eval_on_selector_all(".lane", "ls => ls.map(l => l.dataset.lane)")
    assert names == ["broker 1", "broker 2", "broker 3", "controller"]
    assert page.locator('.lane[data-lane="broker 1"] g.mark[data-mark="HW"]').count() == 1
    assert page.locator('.lane[data-lane="controller"] g.cell').count() == 3
    assert page.locator('.lane[data-lane="controller"] g.mark').count() == 3
    lost = page.locator('.lane[data-lane="broker 2"] .lost')
    assert lost.count() == 1 and "committed value A (offset 0) not on broker 2" in lost.text_content()
    assert page.locator('.lane[data-lane="broker 1"] g.cell.focus').count() == 1
    assert "fenced · broker epoch 3" in page.inner_text('.lane[data-lane="broker 3"] .head')
    # The loss is marked only where the property fails.
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert page.locator(".lost").count() == 0
    page.close()


def test_a_leads_to_lasso_marks_where_its_trigger_held(browser, tmp_path_factory):
    sc = get_scenario("L1")
    model = build_model(sc.model, dict(sc.options))
    result = check(model, properties=list(sc.properties), **dict(sc.check_options))
    path = tmp_path_factory.mktemp("html") / "L1.html"
    path.write_text(render(check_report(model, result, model_name=sc.model, options=dict(sc.options))))
    page = chromium.open_report(browser, path)
    marked = page.locator("#timeline li.trigger")
    assert marked.count() == 1 and marked.get_attribute("data-index") == "4"
    page.keyboard.press("Home")
    assert page.inner_text("#trigger") == ""
    page.evaluate("location.hash = '#state=5'")
    page.wait_for_function("document.body.dataset.step === '4'")
    assert "The trigger of EventuallyOnline holds here" in page.inner_text("#trigger")
    page.close()


def test_the_swimlane_view_draws_the_whole_trace_and_follows_the_lost_record(browser, k8):
    path, _, violation = k8
    page = chromium.open_report(browser, path)
    rows = page.locator("#swim g.srow")
    assert rows.count() == len(violation.trace) == 9
    heads = page.eval_on_selector_all("#swim .lanehead", "ts => ts.map(t => t.textContent)")
    assert heads == ["replica 1", "replica 2", "controller"]
    assert page.locator("#swim g.ev").count() == 8  # one event per step after the initial state
    # LeaderAndIsr epoch 0, sent by the controller at state 2, received by BecomeLeader at state 3.
    assert page.locator('#swim g.msg[data-from="1"][data-to="2"]').count() == 1
    # Record 0 is followed down replica 1's lane from its write to the end; lost on replica 2.
    held = page.eval_on_selector_all("#swim rect.held", "rs => rs.map(r => [r.dataset.lane, r.dataset.index])")
    assert {lane for lane, _ in held} == {"replica 1"} and min(int(i) for _, i in held) == 4
    assert page.locator('#swim .lost-mark[data-lane="replica 2"]').count() == 1
    # The row of the state shown is highlighted, and a click on a row goes to that state.
    assert page.locator("#swim g.srow.current").get_attribute("data-index") == "8"
    page.locator('#swim g.srow[data-index="3"] rect.band').click()
    assert step_of(page) == 3 and page.locator("#swim g.srow.current").get_attribute("data-index") == "3"
    page.close()
