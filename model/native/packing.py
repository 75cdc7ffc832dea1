"""``pack``/``unpack`` of ``isrcheck.model.encoding.packed`` in C (``_classic.Pack``, ``_classic.Unpack``).

The C functions produce the same ints and the same tuples for the states they handle (flat fields
in -128..127, request codes in 0..255, plain tuples of plain ints); anything else (a value out of
range, an odd type) goes to the Python function they wrap, so the fallback behaviour (an
out-of-range state is returned as it is) is the Python code's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import extension, pure_python


def native_packing(tables: Any, pack: Callable | None, unpack: Callable | None) -> tuple[Any, Any]:
    """The C ``(pack, unpack)`` wrapping the Python ones, or the Python ones themselves."""
    ext = extension()
    if pack is None or unpack is None or ext is None or pure_python():
        return pack, unpack
    flat = tables.layout.requests_i
    return ext.Pack(flat, pack), ext.Unpack(flat, unpack)
