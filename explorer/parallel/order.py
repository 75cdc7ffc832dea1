"""Breadth-first numbering and the traces it rebuilds.

Every stored state has a number: initial states 0, 1, ... in ``init_states()`` order, then each
level in the order a one-process breadth-first search discovers it, which is the order of the key
``(parent number << INDEX_BITS) | successor index``. The coordinator keeps one such key per
state, 8 bytes, in one array per level; that is all the trace bookkeeping there is. A trace is
rebuilt by re-running the model along the recorded successor indices, so it is the trace the
one-process engine rebuilds from its keys: the first successor (in the model's order) that
reaches each state.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import Any

from explorer.errors import ContractError
from explorer.parallel.worker import INDEX_BITS
from explorer.result import Step, Trace

_INDEX_MASK = (1 << INDEX_BITS) - 1


class Numbering:
    """The keys of every level, and the number of the first state of each level."""

    def __init__(self) -> None:
        self.levels: list[array] = []
        self.offsets: list[int] = []

    def __len__(self) -> int:
        return self.offsets[-1] + len(self.levels[-1]) if self.levels else 0

    def add_level(self, keys: array) -> int:
        """Append a level's sorted keys; return the number of its first state."""
        offset = len(self)
        self.levels.append(keys)
        self.offsets.append(offset)
        return offset

    def parent_of(self, number: int) -> tuple[int | None, int]:
        """(parent number, successor index), or (None, index in init_states()) for an initial state."""
        level = bisect_right(self.offsets, number) - 1
        key = self.levels[level][number - self.offsets[level]]
        if level == 0:
            return None, key
        return key >> INDEX_BITS, key & _INDEX_MASK

    def key_of(self, number: int) -> tuple[int, int]:
        """The (parent number, successor index) a non-initial state was discovered at."""
        parent, index = self.parent_of(number)
        assert parent is not None
        return parent, index

    def nbytes(self) -> int:
        return sum(a.itemsize * len(a) for a in self.levels)

    def trace(self, model: Any, number: int) -> Trace:
        """The trace from an initial state to state ``number``."""
        indices = []
        parent, index = self.parent_of(number)
        while parent is not None:
            indices.append(index)
            parent, index = self.parent_of(parent)
        inits = list(model.init_states())
        state = inits[index]
        steps = [Step(None, state)]
        for depth, i in enumerate(reversed(indices), start=2):
            succ = list(model.successors(state))
            if i >= len(succ):
                raise ContractError(
                    f"could not rebuild a trace at depth {depth}: {state!r:.200} has fewer successors "
                    "now than when it was explored; successors() must be deterministic (no randomness, "
                    "no state kept between calls, no iteration over salted hashes)"
                )
            steps.append(Step(*succ[i]))
            state = succ[i][1]
        return Trace(tuple(steps))
