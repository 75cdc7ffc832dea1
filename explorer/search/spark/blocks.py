"""The binary blocks a distributed level moves and keeps: many states per record, not one object each.

Spark's cost in a level is per record and per pickled object, not per byte, so everything a level
moves is a block of one partition's states:

- fingerprints: 128-bit, as 16 big-endian bytes each, concatenated; as a NumPy array of dtype
  ``S16`` they sort, search and merge in C (bytes order is the ints' order);
- parent records of one level and partition: the states' fingerprints (sorted), their parents'
  fingerprints (16 zero bytes for an initial state) and the action indices (uint32), 36 bytes a
  state;
- states: one byte string, ``marshal`` of the list of (packed) states where marshal can write
  them (the classic model's packed ints, tuples of ints), else ``pickle`` (a user's classes):
  between the driver and executors, where Spark pickles every record anyway.

The same bytes are the checkpoint's files (``checkpoint``), written with a 12-byte header (a
magic and the count) so a truncated or foreign file is recognised as such; a checkpoint's blocks
of states are marshal of plain values only, checked by ``plain`` when written and before they are
read (``checkpoint_states``, ``read_checkpoint_states``): never a pickle. NumPy is imported
here only, by the functions that need it (executors and the driver both have it).
"""

from __future__ import annotations

import marshal
import os
import pickle
import struct
from typing import Any

from isrcheck.explorer.search.spark.plain import VERSION, NotPlain, check_plain, decode_plain

FP = 16  # bytes of a fingerprint
NO_PARENT = bytes(FP)  # the parent of an initial state
_MARSHAL, _PICKLE = b"M", b"P"
PARENTS_MAGIC, FRONTIER_MAGIC = b"ISRPAR03", b"ISRFRN03"
_HEADER = struct.Struct("<8sI")


def encode_states(states: list[Any]) -> bytes:
    """One byte string for a list of states (or packed states)."""
    try:
        return _MARSHAL + marshal.dumps(states, VERSION)
    except ValueError:  # a tuple subclass or another type marshal does not write
        return _PICKLE + pickle.dumps(states, protocol=5)


def decode_states(data: bytes) -> list[Any]:
    if data[:1] == _MARSHAL:
        return marshal.loads(memoryview(data)[1:])
    if data[:1] == _PICKLE:
        return pickle.loads(memoryview(data)[1:])
    raise ValueError("not a block of states")


def checkpoint_states(data: bytes) -> bytes:
    """``data`` (an ``encode_states`` block) when it holds plain values only, as a checkpoint file
    may; NotPlain, naming the type, when the states are pickled objects. A marshal block needs no
    walk here: the states' contract leaves marshal nothing but plain values to write (``plain``),
    and every block is walked when it is read."""
    if data[:1] != _MARSHAL:
        kinds = sorted({type(s).__qualname__ for s in pickle.loads(memoryview(data)[1:])})
        raise NotPlain(f"the states are {', '.join(kinds)} objects, not plain values")
    return data


def read_checkpoint_states(data: bytes) -> list[Any]:
    """The states of a checkpoint file's block, read as data only (``plain``): NotPlain (a
    ValueError) for a pickle or anything but plain values."""
    if data[:1] != _MARSHAL:
        raise NotPlain("a checkpoint's block of states must be marshal of plain values; this one is not "
                       f"(it starts with {bytes(data[:1])!r})")
    return decode_plain(memoryview(data)[1:])


def check_checkpoint_states(data: bytes) -> None:
    """``read_checkpoint_states`` without building the states (executors decode them later)."""
    if data[:1] != _MARSHAL:
        raise NotPlain("a checkpoint's block of states must be marshal of plain values; this one is not "
                       f"(it starts with {bytes(data[:1])!r})")
    check_plain(memoryview(data)[1:])


def fp_array(data: bytes) -> Any:
    """A read-only ``S16`` array over concatenated fingerprints."""
    import numpy as np

    return np.frombuffer(data, dtype="S16")


def parents_bytes(fps: bytes, parents: bytes, actions: bytes) -> bytes:
    """A checkpoint file of parent records (``read_parents`` reads it)."""
    return _HEADER.pack(PARENTS_MAGIC, len(fps) // FP) + fps + parents + actions


def read_parents(data: bytes) -> tuple[bytes, bytes, bytes]:
    """(fingerprints, parents, actions) of a parents file; ValueError if it is not one."""
    magic, n = _header(data, PARENTS_MAGIC)
    if len(data) != _HEADER.size + n * (2 * FP + 4):
        raise ValueError(f"a parents file of {n} records must hold {_HEADER.size + n * (2 * FP + 4)} bytes")
    body = memoryview(data)[_HEADER.size:]
    return bytes(body[:n * FP]), bytes(body[n * FP:2 * n * FP]), bytes(body[2 * n * FP:])


def frontier_bytes(fps: bytes, states: bytes) -> bytes:
    """A checkpoint file of one partition's new states: fingerprints, then the states' block."""
    return frontier_header(fps) + fps + states


def frontier_header(fps: bytes) -> bytes:
    """The header of ``frontier_bytes(fps, ...)``, for a writer that writes the pieces in turn."""
    return _HEADER.pack(FRONTIER_MAGIC, len(fps) // FP)


def read_frontier(data: bytes) -> tuple[bytes, bytes]:
    _, n = _header(data, FRONTIER_MAGIC)
    body = memoryview(data)[_HEADER.size:]
    if len(body) < n * FP:
        raise ValueError("a frontier file shorter than its fingerprints")
    return bytes(body[:n * FP]), bytes(body[n * FP:])


def read_frontier_file(fh: Any) -> tuple[bytes, bytes]:
    """``read_frontier`` of an open file, read in pieces (no copy of its states' block by slicing)."""
    _, n = _header(fh.read(_HEADER.size), FRONTIER_MAGIC)
    # the file's size first: ``read(n * FP)`` allocates what it is asked for before it reads, so a
    # damaged count (up to 2^32 - 1) asked for 64 GB, a MemoryError where a short file is a ValueError
    if os.fstat(fh.fileno()).st_size - _HEADER.size < n * FP:
        raise ValueError("a frontier file shorter than its fingerprints")
    fps = fh.read(n * FP)
    if len(fps) < n * FP:
        raise ValueError("a frontier file shorter than its fingerprints")
    return fps, fh.read()


def _header(data: bytes, magic: bytes) -> tuple[bytes, int]:
    if len(data) < _HEADER.size:
        raise ValueError("a file shorter than its header")
    found, n = _HEADER.unpack_from(data)
    if found != magic:
        raise ValueError(f"not a {magic.decode()} file (it starts with {found!r})")
    return found, n


def lookup(fps: bytes, parents: bytes, actions: bytes, keys: Any) -> dict[bytes, tuple[bytes, int]]:
    """{fingerprint: (parent fingerprint, action index)} of those ``keys`` found in a parents block."""
    import numpy as np

    arr = fp_array(fps)
    found = {}
    for key in keys:
        i = int(np.searchsorted(arr, np.array([key], dtype="S16"))[0])
        # compared as bytes: an S16 element read back loses its trailing zero bytes
        if fps[i * FP:(i + 1) * FP] == key:
            found[key] = (parents[i * FP:(i + 1) * FP], int.from_bytes(actions[4 * i:4 * i + 4], "little"))
    return found
