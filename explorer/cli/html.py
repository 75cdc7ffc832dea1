"""The command line's HTML trace reports: ``--html FILE`` on ``check`` and ``scenario``, and
``isrcheck show TRACE.itf.json [--html FILE] [--model MODEL]`` (the file alone unless --model names a model
to replay it against: a trace file never makes isrcheck run code).

The output path is checked before a search starts (a directory, a missing folder, a device or an
unwritable place is refused with exit 2, so no long run ends in a lost report) and the page is
written as every output file is (``isrcheck.explorer.outputs``: atomically, through symlinks, mode
from the umask), so an interrupt never leaves half a page where a report is expected.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from isrcheck.explorer.errors import RunFailed, UserError

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
    """Refuse an output path that cannot take the report, before any work is done (the checks
    every output file gets: ``isrcheck.explorer.outputs.check_output_path``)."""
    from isrcheck.explorer.outputs import check_output_path

    if path:
        check_output_path(path, "--html")


def write_page(path: str | os.PathLike, text: str) -> None:
    """``show``'s page, written as every output is (``isrcheck.explorer.outputs.write_atomically``);
    the page is the command's whole product, so a disk that fails now ends it with exit 7."""
    from isrcheck.explorer.outputs import write_atomically

    try:
        write_atomically(path, text)
    except OSError as exc:
        raise RunFailed(f"could not write the HTML page {str(path)!r}: {exc.strerror or exc}. Free space on that "
                        "disk (or name another folder) and run again") from None


def check_page(model: Any, result: Any, *, model_name: str, options: dict[str, Any],
               scenario: dict[str, str] | None = None, command: str = "",
               notes: Sequence[tuple[str, str]] = ()) -> str:
    """A run's page (``--html`` on ``check`` and ``scenario``); written by the caller with the
    run's other outputs (``isrcheck.explorer.cli.written``)."""
    from isrcheck.explorer.traces.html import render
    from isrcheck.explorer.traces.html.report import check_report

    data = check_report(model, result, model_name=model_name, options=dict(options),
                        scenario=scenario, command=command, notes=notes)
    return render(data)


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


def _replayed(data: dict[str, Any], spec: str) -> tuple[Any, Any, tuple[int, str] | None]:
    """``show --model``: the model, the trace replayed against it, and (1-based state, detail)
    where the trace's property fails. Raises Divergence."""
    from isrcheck.explorer.traces.replay import load_and_replay

    model, replayed = load_and_replay(data, spec)
    prop = data["#meta"].get("property") or ""
    return model, replayed.trace, next(((i, d) for name, i, d in replayed.violated if name == prop), None)


def cmd_show(argv: list[str]) -> int:
    """``isrcheck show TRACE.itf.json [--html FILE] [--full] [--explain] [--model MODEL]``: show a
    trace file as text or as an HTML page. From the file alone (no model code runs: a trace may come
    from anyone); with ``--model``, replayed against that model first, which also draws its pictures."""
    from isrcheck.explorer.traces.html import render
    from isrcheck.explorer.traces.html.report import header, report, trace_entry
    from isrcheck.explorer.traces.itf import read_itf
    from isrcheck.explorer.traces.recorded import recorded_trace
    from isrcheck.explorer.traces.replay import Divergence
    from isrcheck.explorer.traces.text import render_trace
    from isrcheck.explorer.traces.trace_file import printable

    p = _Parser(prog="isrcheck show",
                description="Show an ITF trace written by isrcheck: as text, or with --html as a page to step "
                            "through. Runs no model code unless --model names one.")
    p.add_argument("trace", help="the .itf.json file")
    add_option(p)
    p.add_argument("--full", action="store_true", help="print whole states in the text trace")
    p.add_argument("--model", metavar="MODEL",
                   help="replay the trace against MODEL (a registered name or path/to/file.py) first, and draw "
                        "its pictures; this runs MODEL's code")
    p.add_argument("--explain", action="store_true", help="after the text trace, say what each field shown means")
    args = p.parse_args(argv)
    check_path(args.html)
    data = read_itf(args.trace)
    meta = data["#meta"]
    prop, kind, detail = (printable(meta.get(k) or "") for k in ("property", "kind", "detail"))
    if args.model:
        try:
            model, trace, found = _replayed(data, args.model)
        except Divergence as exc:
            print(f"The trace does not replay against model {args.model}: it diverged at {printable(str(exc))}",
                  file=sys.stderr)
            return EXIT_DIVERGED
        how = "replayed against " + args.model + ": every step matches the model"
    else:
        model, trace = recorded_trace(data)
        found = (len(trace), detail) if prop and kind in ("always", "transition") else None
        how = "as recorded in the file, not replayed: isrcheck replay or show --model re-checks it"
    loop = trace.loop
    fail_index = None
    if found is not None:
        fail_index, detail = found[0] - 1, found[1] or detail
        verdict, tone = f"{prop} fails at state {found[0]} ({how})", "bad"
    elif prop and kind not in ("always", "transition"):
        verdict, tone = f"{prop} ({kind}) as recorded ({how})", "bad"
    else:
        verdict, tone = f"no checked property fails along this trace ({how})", "good"
        kind = ""
    if not args.html:
        print(render_trace(model, trace, full=args.full, explain=args.explain))
        print(f"\n{verdict}" + (f": {detail}" if detail and tone == "bad" else ""))
        return EXIT_OK
    model_name = str(meta.get("model"))
    head = header(model_name=model_name, options=dict(meta.get("options") or {}), trusted=False,
                  properties=[prop] if prop else [], verdict=verdict, tone=tone, scenario=_scenario(meta),
                  counts=[("trace", f"{len(trace)} states"), ("file", str(args.trace))])
    name = Path(args.trace).name
    what = f"{prop} in {name}" if prop else name
    scenario = head["scenario"]
    title = f"{scenario['id']}: {scenario['title']}" if scenario and scenario["title"] else what
    entry = trace_entry(model, trace, name=prop or "trace", kind=kind, detail=detail,
                        fail_index=fail_index, loop=loop, loop_action=meta.get("loop_action"),
                        title=f"{what}: {len(trace)} states",
                        trigger=fail_index if kind == "leads-to" else None)
    write_page(args.html, render(report(head, [entry], title=title)))
    print(f"Wrote {args.html} ({len(trace)} states)")
    return EXIT_OK
