"""Regenerate the HTML report's screenshots in docs/ (docs/html.md shows them):

    .venv/bin/python docs/update_screenshots.py

For K1, K8 and K7 (KRaft): ``isrcheck scenario ID --html`` writes the page (the command line itself, not a
copy of it), then Debian's chromium, headless, opens it at the state where the property fails and
takes the PNG (``isrcheck.explorer.traces.html.browser``, the code the browser tests use). K8's ITF trace, which
docs/html.md feeds to ``isrcheck show``, is rewritten from the same run. Needs chromium and
Playwright, as ``./dev test`` installs them.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from isrcheck.explorer.cli.main import main  # noqa: E402
from isrcheck.explorer.traces.html.browser import screenshot  # noqa: E402

SHOTS = {"K1": "docs/img/html-k1.png", "K8": "docs/img/html-k8.png", "K7": "docs/img/html-k7.png"}
TRACE = "docs/examples/k8.itf.json"


def run(*argv: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    if code != 0:
        raise SystemExit(f"isrcheck {' '.join(argv)} exited {code}")


def update() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for scenario, png in SHOTS.items():
            page = Path(tmp) / f"{scenario}.html"
            extra = ["--trace-json", str(ROOT / TRACE)] if scenario == "K8" else []
            run("scenario", scenario, "--quiet", "--html", str(page), *extra)
            screenshot(page, ROOT / png, width=1100, height=700, fields=False)
            print(f"{png}: {(ROOT / png).stat().st_size:,} bytes (from a {page.stat().st_size:,}-byte page)")
    print(f"{TRACE}: rewritten")


if __name__ == "__main__":
    update()
