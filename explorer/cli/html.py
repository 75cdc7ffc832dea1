"""The command line's HTML trace reports: ``--html FILE`` on ``check`` and ``scenario``, and
``isrcheck show TRACE.itf.json [--html FILE]``.

The output path is checked before a search starts (a directory, a missing folder, a device or an
unwritable place is refused with exit 2, so no long run ends in a lost report) and the page is
written atomically (a temporary file in the same folder, then a rename), so an interrupt never
leaves half a page where a report is expected.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from isrcheck.explorer.errors import UserError

EXIT_OK, EXIT_DIVERGED = 0, 3


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error as a UserError (exit 2, one paragraph), as in ``isrcheck.explorer.cli.main``
    (not imported from there: ``isrcheck.explorer.cli.main`` imports this module)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{message} (see {self.prog} --help)")


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--html", metavar="FILE",
                        help="write the trace(s) as one self-contained HTML page to step through in a browser")


def check_path(path: str | None) -> None:
    """Refuse an output path that cannot take the report, before any work is done."""
    if not path:
        return
    target = Path(path)
    if target.is_dir():
        raise UserError(f"--html {path!r} is a directory; name a file, e.g. {str(target / 'report.html')!r}")
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
        raise UserError(f"--html {path!r} exists and is not a regular file (a device or a pipe); name a file")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise UserError(f"--html {path!r}: the folder {str(parent)!r} does not exist; create it first")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"--html {path!r}: the folder {str(parent)!r} is not writable; choose another place")


def write_page(path: str | os.PathLike, text: str) -> None:
    """Write atomically; a symlink is written through (its target is replaced, not the link)."""
    target = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as an ordinary file would be created, not mkstemp's 0600
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UserError(f"could not write the HTML report to {str(path)!r}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_check(path: str, model: Any, result: Any, *, model_name: str, options: dict[str, Any],
                scenario: dict[str, str] | None = None, command: str = "",
                notes: Sequence[tuple[str, str]] = ()) -> None:
    from isrcheck.explorer.traces.html import render
    from isrcheck.explorer.traces.html.report import check_report

    data = check_report(model, result, model_name=model_name, options=dict(options),
                        scenario=scenario, command=command, notes=notes)
    write_page(path, render(data))


def _scenario(meta: dict[str, Any]) -> dict[str, str] | None:
    """The catalogue entry a trace file names, for the page's title and story."""
    from isrcheck.explorer.scenarios import get_scenario

    if not meta.get("scenario"):
        return None
    try:
        sc = get_scenario(str(meta["scenario"]))
    except UserError:
        return {"id": str(meta["scenario"]), "title": "", "story": ""}
    return {"id": sc.id, "title": sc.title, "story": sc.story}


def cmd_show(argv: list[str]) -> int:
    """``isrcheck show TRACE.itf.json [--html FILE] [--full] [--explain]``: replay a trace file against its model
    and show it, as text or as an HTML page."""
    from isrcheck.explorer.traces.html import render
    from isrcheck.explorer.traces.html.report import header, report, trace_entry
    from isrcheck.explorer.traces.itf import read_itf
    from isrcheck.explorer.traces.replay import Divergence, load_and_replay
    from isrcheck.explorer.traces.text import render_trace

    p = _Parser(prog="isrcheck show",
                description="Show an ITF trace written by isrcheck: as text, or with --html as a page to step through.")
    p.add_argument("trace", help="the .itf.json file")
    add_option(p)
    p.add_argument("--full", action="store_true", help="print whole states in the text trace")
    p.add_argument("--explain", action="store_true", help="after the text trace, say what each field shown means")
    args = p.parse_args(argv)
    check_path(args.html)
    data = read_itf(args.trace)
    try:
        model, replayed = load_and_replay(data)
    except Divergence as exc:
        print(f"The trace does not replay against its model: it diverged at {exc}", file=sys.stderr)
        return EXIT_DIVERGED
    meta = data["#meta"]
    prop, kind, detail = meta.get("property") or "", meta.get("kind") or "", meta.get("detail") or ""
    loop = data.get("loop")
    loop = loop if isinstance(loop, int) and not isinstance(loop, bool) and 0 <= loop < len(replayed.trace) else None
    fail_index = None
    found = next(((i, d) for name, i, d in replayed.violated if name == prop), None)
    if found is not None:
        fail_index, detail = found[0] - 1, found[1] or detail
        verdict, tone = f"{prop} fails at state {found[0]} (replayed: every step matches the model)", "bad"
    elif prop and kind not in ("always", "transition"):
        verdict, tone = f"{prop} ({kind}) as recorded; every step replays against the model", "bad"
    else:
        verdict, tone = "no checked property fails along this trace (every step replays)", "good"
        kind = ""
    if not args.html:
        print(render_trace(model, replayed.trace, full=args.full, explain=args.explain))
        print(f"\n{verdict}" + (f": {detail}" if detail and tone == "bad" else ""))
        return EXIT_OK
    model_name = str(meta.get("model"))
    head = header(model_name=model_name, options=dict(meta.get("options") or {}),
                  properties=[prop] if prop else [], verdict=verdict, tone=tone, scenario=_scenario(meta),
                  counts=[("trace", f"{len(replayed.trace)} states"), ("file", str(args.trace))])
    name = Path(args.trace).name
    what = f"{prop} in {name}" if prop else name
    scenario = head["scenario"]
    title = f"{scenario['id']}: {scenario['title']}" if scenario and scenario["title"] else what
    entry = trace_entry(model, replayed.trace, name=prop or "trace", kind=kind, detail=detail,
                        fail_index=fail_index, loop=loop, loop_action=meta.get("loop_action"),
                        title=f"{what}: {len(replayed.trace)} states",
                        trigger=fail_index if kind == "leads-to" else None)
    write_page(args.html, render(report(head, [entry], title=title)))
    print(f"Wrote {args.html} ({len(replayed.trace)} states)")
    return EXIT_OK
