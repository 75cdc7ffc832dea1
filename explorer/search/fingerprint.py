"""State fingerprints that are the same in every process.

Python's ``hash()`` of strings is salted per process, and the iteration order of a frozenset can
depend on how it was built, so neither may decide a state's identity across Spark executors or
between a run and its resumption. A fingerprint here is an unkeyed BLAKE2b digest of a canonical
encoding (``canonical_bytes``): ``marshal`` version 2 bytes for states of ints, None, bytes and
tuples (no back-references, so the bytes depend only on the value, in every process), and an
injective text in which frozensets are sorted for anything else (strings, whose marshal form
depends on interning; frozensets, whose order depends on insertion history). The marshal path
costs about a third of the text's (measured on KIP-320 states, docs/spark.md). 64-bit fingerprints are TLC's choice for
one machine; the distributed engine uses 128 bits.

``True`` and ``1`` (``False`` and ``0``) are one value here, as they are for Python's ``==`` and
``hash``, which is what the exact store keys states by: every store and engine must agree on what
is the same state, so a bool is encoded as the int it equals.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Callable
from hashlib import blake2b
from typing import Any

from isrcheck.explorer.errors import ContractError

_SCALARS = (int, str, bytes, type(None))


def _text(value: Any) -> str:
    """A canonical text for any allowed value. Frozensets are written in braces with their
    elements' texts sorted, which nothing else produces outside a quoted string, so the text is
    injective: equal texts mean equal values."""
    if isinstance(value, tuple):
        return "(" + "".join(_text(v) + "," for v in value) + ")"
    if isinstance(value, frozenset):
        return "{" + ",".join(sorted(_text(v) for v in value)) + "}"
    if type(value) is bool:
        return "1" if value else "0"
    if isinstance(value, _SCALARS):
        return repr(value)
    raise ContractError(
        f"a state contains a {type(value).__name__} ({value!r:.60}); states must be immutable values built "
        "from ints, strings, tuples and frozensets only, so that no successor function can change a state "
        "in place and every process encodes it the same way"
    )


def _plain(value: tuple) -> bool:
    """True when a tuple holds no frozenset and no bool at any depth (only ints, strings, bytes,
    None and such tuples), so that its ``repr`` is its canonical text."""
    for v in value:
        t = type(v)
        if t is tuple:
            if not _plain(v):
                return False
        elif t is bool or not isinstance(v, _SCALARS):
            return False
    return True


def _unbool(value: Any) -> Any:
    """A tuple with every bool replaced by the int it equals, at any depth."""
    if type(value) is bool:
        return int(value)
    if type(value) is tuple:
        return tuple(_unbool(v) for v in value)
    return value


def _plain_but_bools(value: tuple) -> bool:
    """True when the tuple would be plain with its bools read as ints."""
    for v in value:
        if type(v) is tuple:
            if not _plain_but_bools(v):
                return False
        elif not isinstance(v, _SCALARS):
            return False
    return True


def encode(state: Any) -> bytes:
    """A canonical byte encoding of a state: equal states give equal bytes in every process, and
    different states different bytes.

    A tuple without frozensets (the common case: the replication model's states) is encoded by
    ``repr``, in C (bools first read as ints); every other value by ``_text``. Both texts are
    Python literals that evaluate back to the value (a frozenset's text to the equal set), so
    equal texts mean equal values whichever path made them: the encoding is injective (with
    ``True == 1``, as Python has it)."""
    if type(state) is tuple:
        if _plain(state):
            return repr(state).encode()
        if _plain_but_bools(state):  # the same text as the equal tuple of ints
            return repr(_unbool(state)).encode()
    return _text(state).encode()


# Marshal type codes whose bytes may differ between equal values (strings: interned or not;
# frozensets and sets: iteration order) or which the state contract refuses (lists, dicts, floats,
# complex). A payload byte that happens to equal one of them only sends the state down the slow,
# equally canonical path; it can never make the fast path wrong.
_RISKY = re.compile(rb"[ut><\[{gy]").search
_TEXT_MARK = b"\xff"  # marshal version 2 never writes a first byte >= 0x80 (no FLAG_REF)


# True == 1 and False == 0 (one state to ==, hash and the one-process engine), but marshal writes
# them as "T" and "F": a state with such a byte is marshalled again with its bools made ints. A
# payload byte equal to "T" or "F" only costs that second look.
_BOOLISH = re.compile(rb"[TF]").search


def canonical_bytes(state: Any, _dumps=marshal.dumps, _risky=_RISKY, _boolish=_BOOLISH) -> bytes:
    """Equal states give equal bytes in every process (marshal version 2 of ints, None, bytes and
    tuples depends only on the value), different states different bytes."""
    try:
        data = _dumps(state, 2)
    except ValueError:  # a tuple subclass (NamedTuple) or another type marshal does not know
        return _TEXT_MARK + encode(state)
    if _risky(data) is not None:
        return _TEXT_MARK + encode(state)
    if _boolish(data) is not None:
        plain = _without_bools(state)
        if plain is not state:
            return _dumps(plain, 2)
    return data


def _without_bools(value: Any) -> Any:
    """``value`` with every bool inside tuples made the equal int; ``value`` itself if it has none
    (only plain tuples, ints, None and bytes reach here: anything else took the text path)."""
    if value is True or value is False:
        return int(value)
    if type(value) is tuple:
        items = tuple(_without_bools(v) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def fingerprint(state: Any, bits: int = 64) -> int:
    """An unsigned ``bits``-bit fingerprint (64 or 128) of a state: BLAKE2b of ``canonical_bytes``
    (marshal for states of ints and tuples, ``encode``'s text otherwise), the same in every process."""
    return int.from_bytes(blake2b(canonical_bytes(state), digest_size=bits // 8).digest(), "big")


def fingerprint_bytes(state: Any, _blake2b=blake2b) -> bytes:
    """``fingerprint(state, bits=128)`` as its 16 big-endian bytes (what the Spark engine keeps:
    bytes order is the ints' order, and bytes go into arrays without conversion)."""
    return _blake2b(canonical_bytes(state), digest_size=16).digest()


def packed_fingerprint(pack: Callable[[Any], Any]) -> Callable[[Any], int]:
    """A 64-bit fingerprint of a state through the model's ``pack`` (``isrcheck.explorer.contract.packing``):
    where ``pack`` gives an int (the classic model's states), BLAKE2b of its ``marshal`` bytes, all
    in C, about a quarter of the cost of ``fingerprint`` on the tuple (which builds the state's text
    in Python); any other packed value goes through ``fingerprint``. ``pack`` is exact (equal packs
    exactly for equal states), so this fingerprints states as well as ``fingerprint`` does; the
    ints are hashed with their own personalization, so the two kinds of input never share an
    encoding. Not the same numbers as ``fingerprint`` of the state: only the in-process store uses
    it, which keeps nothing on disk (the Spark engine's checkpointed fingerprints are
    ``fingerprint``'s, 128 bits)."""

    def packed(state: Any, _pack=pack, _dumps=marshal.dumps, _blake2b=blake2b, _from=int.from_bytes) -> int:
        key = _pack(state)
        if type(key) is int:
            return _from(_blake2b(_dumps(key, 2), digest_size=8, person=b"isrcheck-packed").digest(), "big")
        return fingerprint(key)

    return packed


def collision_probability(distinct: int, generated: int, bits: int = 64) -> float:
    """TLC's optimistic estimate of the chance that two distinct states shared a fingerprint:
    every state generated after the first sighting is a lookup against ``distinct`` stored
    fingerprints, each colliding with probability ``1 / 2**bits``."""
    return max(generated - distinct, 0) * distinct / float(2**bits)
