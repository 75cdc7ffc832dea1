"""Compact state encodings and visited-set tables on flat arrays, for the parallel engine.

A Python dict keyed by state tuples costs about 289 bytes a state on the classic model (the tuple
itself, the dict slot, the parent's key); keyed by 64-bit fingerprints, about 102 (an int object per
fingerprint and per parent). Here a visited set is an open-addressing hash table on ``array``s:

- ``FingerprintTable``: 64-bit fingerprints in one ``array('q')`` (8 bytes a slot, kept at most
  80 % full, so 10 to 20 bytes a state). Two different states share a fingerprint with the
  probability TLC estimates (``explorer.fingerprint.collision_probability``).
- ``ExactTable``: each state's compact encoding in one ``bytearray`` arena, its offset and
  fingerprint in arrays, and a hash table of indices: no collision can merge two states, because
  a fingerprint match is confirmed by comparing the encodings byte for byte.

Neither stores parents: the parallel engine numbers states in breadth-first order and keeps each
state's (parent number, successor index) in one 8-byte key per state (``explorer.parallel``).

``compact_encode`` is the canonical, injective byte encoding both use. States made of ints,
``None``, bools, bytes and tuples (the replication models' states) take the fast path: ``marshal``
version 2 (no back-references, so the bytes depend only on the value), then a reversible
substitution that shortens the common small-int patterns. Any other state (strings, whose marshal
form depends on interning; frozensets, whose marshal order depends on insertion history) takes
``explorer.fingerprint.encode``'s canonical text behind a marker byte marshal never writes first.
Fingerprints are ``hash()`` of the encoding: SipHash, salted per interpreter, the same in every
worker forked from it; they never decide an order or a trace, only identity within one run.
"""

from __future__ import annotations

import marshal
import re
from array import array

from explorer.fingerprint import encode

# Marshal type codes whose bytes may differ between equal values (strings: interned or not;
# frozensets and sets: iteration order) or which the state contract refuses (lists, dicts, floats,
# complex). A payload byte that happens to equal one of them only sends the state down the slow,
# equally canonical path; it can never make the fast path wrong.
_RISKY = re.compile(rb"[ut><\[{gy]").search
_TEXT_MARK = b"\xff"  # marshal version 2 never writes a first byte >= 0x80 (no FLAG_REF)

# The substitution: escape byte E doubled, then each pattern replaced by one code byte. Patterns
# contain neither E nor a code byte, so decoding (left to right: E E -> E, E c -> the code byte
# itself, code byte -> its pattern) is unique and the encoding stays injective.
_E = b"\xfe"
_CODES = (
    (b"\xf1", b"\x00\x00\x00i"),  # the three high bytes of a small non-negative int, then the next int's tag
    (b"\xf2", b"\xff\xff\xff\xffi"),  # -1 (None/Nil in the models), then the next int's tag
    (b"\xf3", b"\x00\x00\x00"),  # the high bytes of a small int at the end of a tuple
)


def compact_encode(state: object, _dumps=marshal.dumps, _risky=_RISKY) -> bytes:
    """A short canonical byte encoding: equal states give equal bytes in every process forked from
    this one, and different states different bytes."""
    data = _dumps(state, 2)
    if _risky(data) is not None:
        return _TEXT_MARK + encode(state)
    data = data.replace(b"\xfe", b"\xfe\xfe")
    for code, pattern in _CODES:
        data = data.replace(code, _E + code).replace(pattern, code)
    return data


def _squeeze_fast(data: bytes) -> bytes:
    """``compact_encode``'s substitution unrolled, for the hot loop (same bytes)."""
    return (data.replace(b"\xfe", b"\xfe\xfe")
            .replace(b"\xf1", b"\xfe\xf1").replace(b"\x00\x00\x00i", b"\xf1")
            .replace(b"\xf2", b"\xfe\xf2").replace(b"\xff\xff\xff\xffi", b"\xf2")
            .replace(b"\xf3", b"\xfe\xf3").replace(b"\x00\x00\x00", b"\xf3"))


def fast_encoder():
    """``compact_encode`` as a closure with everything bound locally (the engine calls it once per
    generated state)."""
    dumps, risky, squeeze, mark = marshal.dumps, _RISKY, _squeeze_fast, _TEXT_MARK

    def enc(state: object) -> bytes:
        data = dumps(state, 2)
        if risky(data) is not None:
            return mark + encode(state)
        return squeeze(data)

    return enc


def fingerprint_of(data: bytes) -> int:
    """The nonzero 64-bit fingerprint of an encoding (0 marks an empty table slot)."""
    return hash(data) or 1


class FingerprintTable:
    """A set of nonzero 64-bit fingerprints: linear probing on one ``array('q')``."""

    def __init__(self, capacity: int = 1 << 16) -> None:
        size = 1 << max(4, (max(capacity, 16) - 1).bit_length())
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
    """A set of encodings: a hash table of indices into an arena of the encodings themselves, so
    membership is decided by comparing bytes, never by a fingerprint alone."""

    def __init__(self, capacity: int = 1 << 16) -> None:
        size = 1 << max(4, (max(capacity, 16) - 1).bit_length())
        self.slots = array("L", bytes(array("L").itemsize * size))  # index + 1, 0 = empty
        self.mask = size - 1
        self.limit = int(size * 0.7)
        self.fps = array("q")
        self.offsets = array("Q", [0])
        self.arena = bytearray()

    def __len__(self) -> int:
        return len(self.fps)

    def add(self, data: bytes, fp: int) -> bool:
        """Insert the encoding ``data`` (whose fingerprint is ``fp``); True if it is new."""
        slots, mask, fps, offsets, arena = self.slots, self.mask, self.fps, self.offsets, self.arena
        i = fp & mask
        while True:
            n = slots[i]
            if n == 0:
                break
            n -= 1
            if fps[n] == fp and arena[offsets[n]:offsets[n + 1]] == data:
                return False
            i = (i + 1) & mask
        slots[i] = len(fps) + 1
        fps.append(fp)
        arena += data
        offsets.append(len(arena))
        if len(fps) > self.limit:
            self._grow()
        return True

    def __contains__(self, data: bytes) -> bool:
        fp = fingerprint_of(data)
        slots, mask, fps, offsets, arena = self.slots, self.mask, self.fps, self.offsets, self.arena
        i = fp & mask
        while True:
            n = slots[i]
            if n == 0:
                return False
            n -= 1
            if fps[n] == fp and arena[offsets[n]:offsets[n + 1]] == data:
                return True
            i = (i + 1) & mask

    def _grow(self) -> None:
        size = 2 * len(self.slots)
        self.slots = slots = array("L", bytes(self.slots.itemsize * size))
        self.mask = mask = size - 1
        self.limit = int(size * 0.7)
        for n, fp in enumerate(self.fps, start=1):
            i = fp & mask
            while slots[i]:
                i = (i + 1) & mask
            slots[i] = n

    def nbytes(self) -> int:
        return (self.slots.itemsize * len(self.slots) + self.fps.itemsize * len(self.fps)
                + self.offsets.itemsize * len(self.offsets) + len(self.arena))
