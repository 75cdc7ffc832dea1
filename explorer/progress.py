"""Where a long run reports progress, as TLC prints it. On a terminal it is one live line redrawn
in place; otherwise (CI logs, a file) a plain line every ``interval`` seconds, so logs stay
readable. Every engine reports here (the explicit-state ones with a
``isrcheck.explorer.search.progress.Snapshot`` per interval, the symbolic ones with lines that
stay), so the channel is part of the API, below both ``search/`` and ``symbolic/``."""

from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO


class Line(Protocol):
    """What ``Progress.show`` draws: anything that renders itself as one line."""

    def line(self) -> str: ...


class Progress:
    """Receives snapshots from an engine and decides when and how to show them."""

    def __init__(self, stream: TextIO | None = None, interval: float | None = None, live: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.interval = interval if interval is not None else (0.5 if self.live else 10.0)
        self._next = time.monotonic() + self.interval
        self._drawn = False

    def due(self) -> bool:
        """Cheap enough for the hot loop's periodic check."""
        return time.monotonic() >= self._next

    def show(self, snap: Line) -> None:
        self._next = time.monotonic() + self.interval
        if self.live:
            self.stream.write("\r\x1b[2K" + snap.line())
            self._drawn = True
        else:
            self.stream.write(snap.line() + "\n")
        self.stream.flush()

    def message(self, text: str) -> None:
        """A line that stays (a level summary from the distributed engine, a checkpoint)."""
        self.finish()
        self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


class Silent(Progress):
    """No output; what tests and library callers get unless they ask."""

    def __init__(self) -> None:
        self.live = False
        self.interval = float("inf")
        self._drawn = False

    def due(self) -> bool:
        return False

    def show(self, snap: Line) -> None:
        pass

    def message(self, text: str) -> None:
        pass

    def finish(self) -> None:
        pass
