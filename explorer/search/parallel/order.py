"""Breadth-first numbering and the traces it rebuilds.

Every stored state has a number: initial states 0, 1, ... in ``init_states()`` order, then each
level in the order a one-process breadth-first search discovers it, which is the order of the key
``(parent number << INDEX_BITS) | successor index``. The coordinator appends one such key per
state, 8 bytes, to the level being built; when the level is done (``seal``) its keys are split
into the parent numbers (4 bytes each) and the successor indices (1 byte each while every index
of the level is below 256, the usual case: a state rarely has more successors), so a stored state
costs 5 bytes of trace bookkeeping, not 8; that is all the trace bookkeeping there is. A trace is
rebuilt by re-running the model along the recorded successor indices, so it is the trace the
one-process engine rebuilds from its keys: the first successor (in the model's order) that
reaches each state.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from typing import Any

from isrcheck.explorer.errors import ContractError
from isrcheck.explorer.result import Step, Trace
from isrcheck.explorer.search.parallel.worker import INDEX_BITS

_INDEX_MASK = (1 << INDEX_BITS) - 1


def _smallest(typecodes: str, largest: int) -> str:
    """The first typecode of ``typecodes`` whose items hold ``largest``."""
    for code in typecodes:
        if largest < 1 << (8 * array(code).itemsize):
            return code
    raise OverflowError(largest)


def _split(keys: array) -> tuple[array, array]:
    """(parent numbers, successor indices) of a level's keys, each in its smallest array type."""
    if sys.byteorder != "little" or keys.itemsize != 8 or INDEX_BITS != 24:
        parents = [key >> INDEX_BITS for key in keys]
        indices = [key & _INDEX_MASK for key in keys]
        return array(_smallest("IQ", max(parents)), parents), array(_smallest("BHI", max(indices)), indices)
    # A key's 8 little-endian bytes are the index's 3, then the parent's 5: the fields are
    # gathered with strided byte slices, copied in C, not ints made and taken apart one by one
    # (ten million keys: about 0.1 s instead of 2.5).
    raw = keys.tobytes()
    parts = [raw[i::8] for i in range(8)]

    def gather(columns: list[bytes]) -> bytes:
        out = bytearray(len(keys) * len(columns))
        for i, column in enumerate(columns):
            out[i::len(columns)] = column
        return bytes(out)

    def zero(column: bytes) -> bool:
        return not column.strip(b"\0")

    parents = array("I" if zero(parts[7]) else "Q")
    parents.frombytes(gather(parts[3:7] if parents.typecode == "I" else parts[3:8] + [bytes(len(keys))] * 3))
    width = 1 if zero(parts[1]) and zero(parts[2]) else 2 if zero(parts[2]) else 4
    indices = array({1: "B", 2: "H", 4: "I"}[width])
    indices.frombytes(gather((parts[:3] + [bytes(len(keys))])[:width]))
    return parents, indices


class Numbering:
    """The keys of every level, and the number of the first state of each level.

    A level is one ``array('Q')`` of keys while it is being built (the coordinator appends to it
    and may rebuild a trace into it at a violation); sealed, it is a pair (parent numbers, successor
    indices) of the smallest array types that hold them."""

    def __init__(self) -> None:
        self.levels: list[array | tuple[array, array]] = []
        self.offsets: list[int] = []
        self.sizes: list[int] = []

    def __len__(self) -> int:
        if not self.levels:
            return 0
        last = self.levels[-1]
        return self.offsets[-1] + (self.sizes[-1] if isinstance(last, tuple) else len(last))

    def add_level(self, keys: array, *, seal: bool = True) -> int:
        """Append a level's keys (the array the caller goes on appending to, in search order);
        return the number of its first state. The previous level is sealed unless ``seal`` is
        false (the caller seals it later, ``seal(-2)``: the parallel engine does it while its
        workers run)."""
        offset = len(self)
        if self.levels and seal:
            self.seal()
        self.levels.append(keys)
        self.offsets.append(offset)
        self.sizes.append(0)
        return offset

    def seal(self, level: int = -1) -> None:
        """Split a finished level's keys (the last one by default) into parent numbers and
        successor indices (the initial level's keys are indices into init_states() only)."""
        if not self.levels or abs(level) > len(self.levels):
            return
        level %= len(self.levels)
        keys = self.levels[level]
        if self.sizes[level] or not isinstance(keys, array) or not keys:
            return
        if level == 0:
            indices = array(_smallest("BHIQ", max(keys)), keys)
            self.levels[level] = (array("B"), indices)
        else:
            self.levels[level] = _split(keys)
        self.sizes[level] = len(keys)

    def parent_of(self, number: int) -> tuple[int | None, int]:
        """(parent number, successor index), or (None, index in init_states()) for an initial state."""
        level = bisect_right(self.offsets, number) - 1
        at = number - self.offsets[level]
        keys = self.levels[level]
        if isinstance(keys, tuple):
            parents, indices = keys
            return (parents[at] if level else None), indices[at]
        key = keys[at]
        if level == 0:
            return None, key
        return key >> INDEX_BITS, key & _INDEX_MASK

    def key_of(self, number: int) -> tuple[int, int]:
        """The (parent number, successor index) a non-initial state was discovered at."""
        parent, index = self.parent_of(number)
        assert parent is not None
        return parent, index

    def nbytes(self) -> int:
        return sum(a.itemsize * len(a) for level in self.levels
                   for a in (level if isinstance(level, tuple) else (level,)))

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
