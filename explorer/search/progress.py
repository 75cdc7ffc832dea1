"""Progress on long runs, as TLC prints it: generated, distinct, frontier (TLC's queue), depth,
rate and elapsed time, plus the resident memory and its growth per level (when the engine knows
them) so that a run heading past the machine's memory shows it long before it gets there. On a
terminal it is one live line redrawn in place; otherwise (CI logs, a file) a plain line every
``interval`` seconds, so logs stay readable."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import TextIO

from isrcheck.explorer.search.memory import human


@dataclass
class Snapshot:
    generated: int
    distinct: int
    frontier: int
    depth: int
    elapsed: float
    note: str = ""
    rss: int | None = None  # resident memory of the process, bytes
    rss_growth: int | None = None  # how much the last completed level added to it

    def line(self) -> str:
        rate = self.distinct / self.elapsed if self.elapsed > 0 else 0.0
        text = (
            f"depth {self.depth:>3} | distinct {self.distinct:>12,} | generated {self.generated:>13,} | "
            f"frontier {self.frontier:>10,} | {rate:>9,.0f} states/s | {_clock(self.elapsed)}"
        )
        if self.rss is not None:
            text += f" | RSS {_size(self.rss)}"
            if self.rss_growth is not None:
                text += f" ({'+' if self.rss_growth >= 0 else '-'}{_size(abs(self.rss_growth))}/level)"
        return f"{text} | {self.note}" if self.note else text


def _size(n: int) -> str:
    return human(n)


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h:d}:{m:02d}:{s:02d}"


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

    def show(self, snap: Snapshot) -> None:
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

    def show(self, snap: Snapshot) -> None:
        pass

    def message(self, text: str) -> None:
        pass

    def finish(self) -> None:
        pass
