"""What the explicit-state engines report on long runs, as TLC prints it: generated, distinct,
frontier (TLC's queue), depth, rate and elapsed time, plus the resident memory and its growth per
level (when the engine knows them) so that a run heading past the machine's memory shows it long
before it gets there. The channel it goes to, ``Progress`` (and the quiet ``Silent``), is the
API's ``isrcheck.explorer.progress``, shared with the symbolic engines."""

from __future__ import annotations

from dataclasses import dataclass

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
