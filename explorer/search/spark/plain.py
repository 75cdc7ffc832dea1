"""States as data only, for checkpoint files: ``marshal`` of plain values, checked before it is read.

A checkpoint file is data that whoever can write the folder controls, so reading it must run no
code and build nothing but plain values. The states are written as ``marshal`` (version 2, which
writes no back-references) of a list of plain values: None, bools, ints, floats, strs, bytes and
tuples, lists, sets, frozensets and dicts of them. That is what the classic model's packed states
(one int) and the fixture models' states (tuples of ints, frozensets) are, and it costs nothing
over the blocks a level already moves.

``marshal.loads`` itself is not meant for hostile input (it builds code objects, and a malformed
stream is its caller's problem), so ``check_plain`` walks the stream first and accepts only those
type codes, each with its length inside the buffer, nested at most ``MAX_DEPTH`` deep, and nothing
after the value: ``marshal.loads`` then only ever sees a well-formed stream of plain values. (The
digits of a long integer are left to ``marshal.loads``, which refuses one out of range with a
ValueError.) Writing needs no such walk: the states an engine stores are already restricted to
ints, strings, bytes, None, tuples and frozensets (``fingerprint``'s contract), so a block marshal
could write holds nothing else; the walk on reading is what keeps a forged file out.
A model whose states are other objects (a user's classes, namedtuples) gets checkpoints through
its ``pack``/``unpack`` hooks (explorer/contract.py), whose packed values are plain.
"""

from __future__ import annotations

import marshal
import struct
from typing import Any

VERSION = 2  # marshal's version: no references (``r``, FLAG_REF) and no short-string codes
MAX_DEPTH = 100
_I32 = struct.Struct("<i")
# type code -> what follows it: a fixed size, or how its length is read
_FIXED = {b"N"[0]: 0, b"T"[0]: 0, b"F"[0]: 0, b"i"[0]: 4, b"g"[0]: 8}
_SIZED = {b"s"[0], b"u"[0], b"t"[0]}  # int32 byte length, then the bytes (str as UTF-8)
_SEQUENCE = {b"("[0], b"["[0], b"<"[0], b">"[0]}  # int32 count, then the items
_LONG, _DICT, _NULL = b"l"[0], b"{"[0], b"0"[0]


class NotPlain(ValueError):
    """The bytes are not a marshal stream of plain values (a forged or foreign file)."""


def encode_plain(states: list[Any]) -> bytes | None:
    """``marshal`` of ``states``, or None when they hold something other than plain values."""
    try:
        data = marshal.dumps(states, VERSION)
    except ValueError:
        return None
    try:
        check_plain(data)
    except NotPlain:  # marshal wrote a type this module does not accept (a code object, ...)
        return None
    return data


def decode_plain(data: bytes | memoryview) -> list[Any]:
    """The list of states ``encode_plain`` wrote; NotPlain for anything else."""
    check_plain(data)
    states = marshal.loads(data)
    if not isinstance(states, list):
        raise NotPlain(f"a block of states is a list, not a {type(states).__name__}")
    return states


def check_plain(data: bytes | memoryview) -> None:
    """Raise NotPlain unless ``data`` is exactly one marshal value made of plain values."""
    buf = memoryview(data)
    end = len(buf)
    pos = 0
    # each entry: items still to read in an open container (a dict's: 2 a pair, until its NULL)
    stack: list[int] = [1]
    dicts: list[bool] = [False]
    while stack:
        if stack[-1] == 0:
            stack.pop()
            dicts.pop()
            continue
        if pos >= end:
            raise NotPlain("the block ends inside a value")
        code = buf[pos]
        pos += 1
        if dicts[-1] and code == _NULL:  # a dict's end
            stack.pop()
            dicts.pop()
            continue
        if not dicts[-1]:
            stack[-1] -= 1
        if code in _FIXED:
            pos += _FIXED[code]
        elif code in _SIZED or code == _LONG:
            if pos + 4 > end:
                raise NotPlain("the block ends inside a length")
            (n,) = _I32.unpack_from(buf, pos)
            pos += 4
            size = n if code != _LONG else 2 * abs(n)
            if n < 0 and code != _LONG:
                raise NotPlain(f"a negative length {n}")
            pos += size
        elif code in _SEQUENCE or code == _DICT:
            if len(stack) > MAX_DEPTH:
                raise NotPlain(f"values nested more than {MAX_DEPTH} deep")
            if code == _DICT:
                stack.append(-1)  # counted by its NULL, not by items
                dicts.append(True)
                continue
            if pos + 4 > end:
                raise NotPlain("the block ends inside a length")
            (n,) = _I32.unpack_from(buf, pos)
            pos += 4
            if n < 0 or n > end - pos:  # every item takes at least one byte
                raise NotPlain(f"a container of {n} items in {end - pos} bytes")
            stack.append(n)
            dicts.append(False)
        else:
            raise NotPlain(f"type code {bytes([code])!r} at byte {pos - 1} is not a plain value "
                           "(only None, bools, numbers, strings, bytes and containers of them)")
        if pos > end:
            raise NotPlain("the block ends inside a value")
    if pos != end:
        raise NotPlain(f"{end - pos} bytes after the block's value")
