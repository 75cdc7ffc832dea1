"""Looking at a report as a person does: Debian's chromium, headless, driven by Playwright.

Used by the browser tests (tests/explorer/traces/test_html_browser.py) and by docs/update_screenshots.py, so the
screenshots in docs/ are made by the same code the tests check. Playwright's own browser download
is never used (it fetches a build from the network): the system's chromium is launched directly,
with everything that would reach the network at start-up switched off. Not needed to write a
report; only to look at one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from isrcheck.explorer.errors import UserError

CHROMIUM = os.environ.get("ISRCHECK_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def available() -> str | None:
    """None when a browser can be launched, else the reason it cannot."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is missing (apt-get install chromium; ./dev test installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install -e '.[test]'; ./dev test installs it)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless chromium browser (Playwright's ``Browser``), closed on exit."""
    reason = available()
    if reason:
        raise UserError(f"cannot look at the report in a browser: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def open_report(browser: Any, path: str | os.PathLike, *, width: int = 1200, height: int = 800) -> Any:
    """A page showing the report at ``path``, once its script has drawn the first state.
    Every request other than the file itself is refused, so a report that reached for the
    network would show it (and fail the tests) instead of silently loading."""
    page = browser.new_page(viewport={"width": width, "height": height})
    where, _, fragment = str(path).partition("#")  # a link to a state: report.html#state=3
    url = "file://" + os.path.abspath(where)
    page.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
    page.goto(url + ("#" + fragment if fragment else ""))
    page.wait_for_selector("body[data-ready='1']")
    return page


def screenshot(path: str | os.PathLike, png: str | os.PathLike, *, step: int | None = None,
               width: int = 1200, height: int = 800, fields: bool = True) -> None:
    """A PNG of the whole report at ``path``, at state ``step`` (0-based; default the last state);
    ``fields=False`` folds the table of state fields away (the picture alone, a smaller image)."""
    with chromium() as browser:
        page = open_report(browser, path, width=width, height=height)
        if step is None:
            page.keyboard.press("End")
        else:
            page.keyboard.press("Home")
            for _ in range(step):
                page.keyboard.press("ArrowRight")
        if not fields:
            page.eval_on_selector("#fields-box", "box => { box.open = false; }")
        page.screenshot(path=str(png), full_page=True)
