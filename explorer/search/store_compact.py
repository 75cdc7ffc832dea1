"""Visited-set tables on flat arrays, for the parallel engine: a few bytes per state, not a few hundred.

A Python dict keyed by state tuples costs about 289 bytes a state on the classic model (the tuple
itself, the dict slot, the parent's key); keyed by 64-bit fingerprints, about 102 (an int object per
fingerprint and per parent). Here a visited set is an open-addressing hash table on ``array``s,
and neither table stores parents: the parallel engine numbers states in breadth-first order and
keeps one 8-byte (parent number, successor index) key per state (``isrcheck.explorer.search.parallel.order``).

- ``FingerprintTable``: 64-bit fingerprints in one ``array('q')``, at most 80 % full: 10 to 20
  bytes a state. Two different states share a fingerprint with the probability TLC estimates
  (``isrcheck.explorer.search.fingerprint.collision_probability``). The fingerprint (``fingerprint64``) is
  SipHash (Python's ``hash`` of bytes, salted per interpreter and the same in every worker forked
  from it) of a canonical encoding: ``marshal`` version 2 for states of ints, ``None``, bools,
  bytes and tuples (no back-references, so the bytes depend only on the value), and
  ``isrcheck.explorer.search.fingerprint.encode``'s canonical text for any other state (strings, whose marshal
  form depends on interning; frozensets, whose marshal order depends on insertion history).
- ``ExactTable``: each state packed (``pack``) into one ``bytearray`` arena, with its offset and
  its ``hash()`` in arrays, and a hash table of indices. A hash match is confirmed by unpacking the
  stored state and comparing it with ``==``, so two states are merged exactly when the
  one-process engine's dict would merge them, and never by a hash collision alone.

Fingerprints and hashes decide identity within one run only; they never decide an order or a trace.
"""

from __future__ import annotations

import marshal
import pickle
from array import array
from typing import Any

# canonical_bytes lives with the other fingerprint encodings; imported here for the tables and the tests
from isrcheck.explorer.search.fingerprint import canonical_bytes


def fingerprint64(state: Any) -> int:
    """The nonzero 64-bit fingerprint of a state (0 marks an empty table slot)."""
    return hash(canonical_bytes(state)) or 1


# ``pack``: marshal version 2 with its most common runs shortened, so the classic model's states
# take about 60 bytes instead of 114. Each run is replaced by a byte that does not occur in the
# marshal text; if one does occur, the text is kept as it is. Either way ``unpack`` restores it.
_SHORT = (b"\xf1", b"\x00\x00\x00i")  # the three high bytes of a small int, then the next int's tag
_SHORT_NEG = (b"\xf2", b"\xff\xff\xff\xffi")  # -1 (None/Nil in the models), then the next int's tag
_MARSHAL_SHORT, _MARSHAL, _PICKLE = b"\x01", b"\x02", b"\x03"


def pack(state: Any, _dumps=marshal.dumps) -> bytes:
    """A byte string ``unpack`` turns back into a state equal to ``state``."""
    try:
        data = _dumps(state, 2)
    except ValueError:
        return _PICKLE + pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    if b"\xf1" in data or b"\xf2" in data:
        return _MARSHAL + data
    return _MARSHAL_SHORT + data.replace(_SHORT[1], _SHORT[0]).replace(_SHORT_NEG[1], _SHORT_NEG[0])


def unpack(data: bytes, _loads=marshal.loads) -> Any:
    kind, body = data[:1], data[1:]
    if kind == _MARSHAL_SHORT:
        return _loads(body.replace(_SHORT_NEG[0], _SHORT_NEG[1]).replace(_SHORT[0], _SHORT[1]))
    if kind == _MARSHAL:
        return _loads(body)
    return pickle.loads(body)


def _table_size(capacity: int) -> int:
    return 1 << max(4, (max(capacity, 16) - 1).bit_length())


class FingerprintTable:
    """A set of nonzero 64-bit fingerprints: linear probing on one ``array('q')``."""

    def __init__(self, capacity: int = 1 << 16) -> None:
        size = _table_size(capacity)
        self.slots = array("q", bytes(8 * size))
        self.mask = size - 1
        self.count = 0
        self.limit = int(size * 0.8)

    def __len__(self) -> int:
        return self.count

    def add(self, fp: int) -> bool:
        """Insert ``fp``; True if it was not there before."""
        slots, mask = self.slots, self.mask
        i = fp & mask
        while True:
            v = slots[i]
            if v == fp:
                return False
            if v == 0:
                slots[i] = fp
                self.count += 1
                if self.count > self.limit:
                    self._grow()
                return True
            i = (i + 1) & mask

    def __contains__(self, fp: int) -> bool:
        slots, mask = self.slots, self.mask
        i = fp & mask
        while True:
            v = slots[i]
            if v == fp:
                return True
            if v == 0:
                return False
            i = (i + 1) & mask

    def add_state(self, state: Any) -> bool:
        return self.add(fingerprint64(state))

    def add_hashed(self, state: Any, _h: int) -> bool:
        """``add_state``; the state's ``hash()`` is not a fingerprint, so it is not used."""
        return self.add(fingerprint64(state))

    def _grow(self) -> None:
        old = self.slots
        size = 2 * len(old)
        self.slots = slots = array("q", bytes(8 * size))
        self.mask = mask = size - 1
        self.limit = int(size * 0.8)
        for fp in old:
            if fp:
                i = fp & mask
                while slots[i]:
                    i = (i + 1) & mask
                slots[i] = fp

    def nbytes(self) -> int:
        return self.slots.itemsize * len(self.slots)


class ExactTable:
    """A set of states: a hash table of indices into an arena of the packed states, so membership
    is decided by ``==`` on the unpacked state, never by a hash alone."""

    def __init__(self, capacity: int = 1 << 16) -> None:
        size = _table_size(capacity)
        self.slots = array("I", bytes(4 * size))  # index + 1, 0 = empty
        self.mask = size - 1
        self.limit = int(size * 0.7)
        self.hashes = array("q")
        self.offsets = array("Q", [0])
        self.arena = bytearray()

    def __len__(self) -> int:
        return len(self.hashes)

    def add_state(self, state: Any) -> bool:
        """Insert ``state``; True if no equal state was there before."""
        return self.add_hashed(state, hash(state))

    def add_hashed(self, state: Any, h: int) -> bool:
        """``add_state`` for a state whose ``hash()`` is ``h``."""
        slots, mask, hashes, offsets, arena = self.slots, self.mask, self.hashes, self.offsets, self.arena
        i = h & mask
        while True:
            n = slots[i]
            if n == 0:
                break
            n -= 1
            if hashes[n] == h and unpack(bytes(arena[offsets[n]:offsets[n + 1]])) == state:
                return False
            i = (i + 1) & mask
        n = len(hashes)
        if n >= 0xFFFFFFFF:
            raise MemoryError("the exact store holds 2**32 states per worker; use --store fingerprint")
        slots[i] = n + 1
        hashes.append(h)
        arena += pack(state)
        offsets.append(len(arena))
        if n + 1 > self.limit:
            self._grow()
        return True

    def __contains__(self, state: Any) -> bool:
        h = hash(state)
        slots, mask, hashes, offsets, arena = self.slots, self.mask, self.hashes, self.offsets, self.arena
        i = h & mask
        while True:
            n = slots[i]
            if n == 0:
                return False
            n -= 1
            if hashes[n] == h and unpack(bytes(arena[offsets[n]:offsets[n + 1]])) == state:
                return True
            i = (i + 1) & mask

    def _grow(self) -> None:
        size = 2 * len(self.slots)
        self.slots = slots = array("I", bytes(4 * size))
        self.mask = mask = size - 1
        self.limit = int(size * 0.7)
        for n, h in enumerate(self.hashes, start=1):
            i = h & mask
            while slots[i]:
                i = (i + 1) & mask
            slots[i] = n

    def nbytes(self) -> int:
        return (self.slots.itemsize * len(self.slots) + self.hashes.itemsize * len(self.hashes)
                + self.offsets.itemsize * len(self.offsets) + len(self.arena))
