"""Keep the traces pasted in docs/ equal to what isrcheck prints.

A fenced ``text`` block whose first line is ``$ isrcheck ...`` (a trailing backslash continues it)
is a command and its output. ``python docs/update_traces.py`` reruns every such command and
rewrites the block; ``tests/test_docs_traces.py`` fails when a block is stale. Lines that carry
timings (``states/s``) are left out, so the blocks do not change from run to run.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
BLOCK = re.compile(r"```text\n(\$ isrcheck .*?)```", re.S)


def command_of(block: str) -> tuple[str, list[str]]:
    """The block's command text (as written, continuation lines included) and its argv."""
    lines = block.splitlines()
    cmd = [lines[0]]
    while cmd[-1].endswith("\\"):
        cmd.append(lines[len(cmd)])
    text = "\n".join(cmd)
    argv = shlex.split(text.replace("\\\n", " "))[2:]
    return text, argv


def run(argv: list[str]) -> str:
    from isrcheck.explorer.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(argv)
    return "".join(line + "\n" for line in out.getvalue().splitlines() if "states/s" not in line)


def refreshed(text: str) -> str:
    def replace(match: re.Match) -> str:
        cmd, argv = command_of(match.group(1))
        return f"```text\n{cmd}\n{run(argv)}```"

    return BLOCK.sub(replace, text)


def blocks(path: Path) -> list[tuple[str, str]]:
    """(command, pasted output) of every command block in a document."""
    out = []
    for match in BLOCK.finditer(path.read_text()):
        cmd, _ = command_of(match.group(1))
        out.append((cmd, match.group(1)[len(cmd) + 1:]))
    return out


def main() -> None:
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text()
        new = refreshed(text)
        if new != text:
            path.write_text(new)
            print(f"updated {path.relative_to(DOCS.parent)}", file=sys.stderr)


if __name__ == "__main__":
    main()
