"""One self-contained HTML page from the trace report's data (``isrcheck.explorer.traces.html.report``).

The page is a template with the stylesheet, the script and the data inlined: no network access, no
other file, so a report can be mailed, attached to an issue or opened years later. The data goes in
a ``<script type="application/json">`` element, with ``<`` escaped so that no record id or action
text can close it; the script renders text through ``textContent`` only.
"""

from __future__ import annotations

import html
import json
import re
from importlib.resources import files
from typing import Any


def _asset(name: str) -> str:
    return files(__name__).joinpath(name).read_text(encoding="utf-8")


def render(data: dict[str, Any]) -> str:
    """The page for ``data`` (``isrcheck.explorer.traces.html.report.report``)."""
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    parts = {"TITLE": html.escape(str(data.get("title", "isrcheck report"))), "CSS": _asset("report.css"),
             "JS": _asset("report.js"), "DATA": payload}
    # One pass: text put in (a title, the data) is never scanned again for placeholders.
    return re.sub(r"__(TITLE|CSS|JS|DATA)__", lambda m: parts[m.group(1)], _asset("page.html"))
