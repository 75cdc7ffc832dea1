"""The files one command writes after its search, and the one report of those that failed.

Every output (ITF traces, the regression, the state graph, the HTML page) goes through here and
through ``isrcheck.explorer.outputs.write_atomically``: complete or not at all. A write that fails
(a disk that filled up or became read-only during an hour's search) does not replace the result:
the verdict was printed before any file is written, the other files are still attempted, and the
exit status stays the verdict's. What could not be written is reported once, in one paragraph on
stderr, with the way on.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


class OutputFiles:
    """Collects what was written and what failed, for one report at the end."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self.failed: list[str] = []

    def write(self, path: str | os.PathLike, data: str | bytes, what: str, label: str | None = None) -> bool:
        """Write ``data`` to ``path`` (``what`` names the option, e.g. ``--graph``); ``label`` is how
        the "Wrote" line names the file (default: its path). False when it could not be written."""
        from isrcheck.explorer import outputs

        try:
            outputs.write_atomically(path, data)
        except OSError as exc:
            self.failed.append(f"{what} {str(Path(path))!r} ({exc.strerror or exc})")
            return False
        self.written.append(label or str(path))
        return True

    def report(self, to_stderr: bool, command: str = "isrcheck") -> None:
        """The "Wrote" lines (stderr when stdout carries JSON), then one paragraph for the failures."""
        stream = sys.stderr if to_stderr else sys.stdout
        for path in self.written:
            print(f"Wrote {path}", file=stream)
        if self.failed:
            n = len(self.failed)
            print(f"{command}: {n} output file{'s' if n > 1 else ''} could not be written: "
                  + "; ".join(f"could not write {item}" for item in self.failed)
                  + ". The result above is complete and the exit status is its verdict's; only "
                  + ("these files are" if n > 1 else "the file is")
                  + " missing. Free space on that disk (or name another folder) and run again to write "
                  + ("them." if n > 1 else "it."), file=sys.stderr)
