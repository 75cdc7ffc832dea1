"""A classic state packed into one int: the compact exact key of the parallel engine's store.

``isrcheck.explorer.contract.packing`` finds ``pack``/``unpack`` on the model; the parallel engine then keeps
packed states in its visited set and frontier instead of tuples (48 bytes for a 3-replica state
instead of 192). The encoding is exact, not a hash: the flat fields (values -1..127: logs codes,
high watermarks, epochs with Nil = -1, leaders with None = -1, ISR masks) as signed bytes after a
leading 1 byte, then the LeaderAndIsr request codes (0..255) as bytes, read as one big-endian
int. The leading byte fixes where the bytes start, so the int gives back the exact bytes and the
state. A state with a value outside those ranges is returned as it is (a tuple never equals an
int), so packing never merges two states. Only the classic layout without option fields is
packed; with option fields the model has no packing and the engine keeps tuples.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any


def packing(tables: Any) -> tuple[Callable[[tuple], Any] | None, Callable[[Any], tuple] | None]:
    """``(pack, unpack)`` for the states of a model built on ``tables``, or ``(None, None)``."""
    layout = tables.layout
    if tables.fields.initial() or layout.length != layout.requests_i + 1:
        return None, None
    flat = layout.requests_i
    head = struct.Struct(f">B{flat}b")
    head_pack, head_unpack, from_bytes = head.pack, head.unpack_from, int.from_bytes
    start = flat + 1

    def pack(state: tuple) -> Any:
        try:
            return from_bytes(head_pack(1, *state[:flat]) + bytes(state[flat]), "big")
        except (struct.error, ValueError):
            return state

    def unpack(packed: Any) -> tuple:
        if packed.__class__ is not int:
            return packed
        data = packed.to_bytes((packed.bit_length() + 7) >> 3, "big")
        return head_unpack(data)[1:] + (tuple(data[start:]),)

    return pack, unpack
