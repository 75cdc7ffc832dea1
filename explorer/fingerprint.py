"""State fingerprints that are the same in every process.

Python's ``hash()`` of strings is salted per process, and the iteration order of a frozenset can
depend on how it was built, so neither may decide a state's identity across Spark executors or
between a run and its resumption. A fingerprint here is an unkeyed BLAKE2b digest of a canonical
text encoding in which frozensets are sorted. 64-bit fingerprints are TLC's choice for one machine;
the distributed engine uses 128 bits.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any

from explorer.errors import ContractError

_SCALARS = (int, str, bytes, type(None))


def _normal(value: Any) -> Any:
    """The value with every frozenset replaced by a tagged, sorted tuple, so ``repr`` is canonical."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, tuple):
        return tuple(_normal(v) for v in value) if _needs_normal(value) else value
    if isinstance(value, frozenset):
        items = sorted((_normal(v) for v in value), key=repr)
        return ("#set", *items)
    raise ContractError(
        f"a state contains a {type(value).__name__} ({value!r:.60}); states must be immutable values built "
        "from ints, strings, tuples and frozensets only, so that no successor function can change a state "
        "in place and every process encodes it the same way"
    )


def _needs_normal(value: tuple) -> bool:
    for v in value:
        if not isinstance(v, _SCALARS):
            return True
    return False


def encode(state: Any) -> bytes:
    """A canonical byte encoding of a state: equal states give equal bytes in every process."""
    if isinstance(state, tuple) and not _needs_normal(state):
        return repr(state).encode()
    return repr(_normal(state)).encode()


def fingerprint(state: Any, bits: int = 64) -> int:
    """An unsigned ``bits``-bit fingerprint (64 or 128) of a state."""
    return int.from_bytes(blake2b(encode(state), digest_size=bits // 8).digest(), "big")


def collision_probability(distinct: int, generated: int, bits: int = 64) -> float:
    """TLC's optimistic estimate of the chance that two distinct states shared a fingerprint:
    every state generated after the first sighting is a lookup against ``distinct`` stored
    fingerprints, each colliding with probability ``1 / 2**bits``."""
    return max(generated - distinct, 0) * distinct / float(2**bits)
