"""A level's breadth-first order, recovered from its shards by one merge of sorted keys.

A one-process breadth-first search numbers a level's new states in the order it discovers them:
by the key ``(parent number << INDEX_BITS) | successor index`` of each state's first discovery,
which is the smallest such key among all the steps of the level that reach it. The shards of the
parallel engine each know, for the new states they own, that smallest key (``shard``), and send
them sorted. The level's numbering is then the merge of those sorted runs, and each shard needs
back only which of the merged positions are its own: the owner of each position, one byte (a
*tag*), is all the coordinator sends.

The merge is the coordinator's one piece of per-state work, so it is done in C: every key is
shifted left by 8 bits and its owner put in the low byte (by the shard, with strided byte copies),
the coordinator sorts the concatenated runs (``sorted``: Timsort finds the runs and merges them),
and takes the tags and the keys apart again with strided byte slices. That layout needs at most
256 workers (``MAX_WORKERS``; the engine uses no more) and parent numbers below 2**32 (four
billion states, far beyond what a Python process holds; the engine refuses more).
"""

from __future__ import annotations

import sys
from array import array
from itertools import compress

TAG_BITS = 8
MAX_WORKERS = 1 << TAG_BITS
# The largest discovery key the layout holds: a parent number below 2**32, a 24-bit index.
LARGEST_KEY = (1 << (64 - TAG_BITS)) - 1
_LITTLE = sys.byteorder == "little"


def tag(keys: array, owner: int) -> bytes:
    """``keys`` (sorted, ``array('Q')``, each at most ``LARGEST_KEY``) each shifted left by
    ``TAG_BITS`` with ``owner`` in the low bits, as the bytes of an ``array('Q')``."""
    if not keys:
        return b""
    if not _LITTLE:
        return array("Q", [(k << TAG_BITS) | owner for k in keys]).tobytes()
    raw = keys.tobytes()
    out = bytearray(len(raw))
    out[0::8] = bytes([owner]) * len(keys)
    for b in range(1, 8):
        out[b::8] = raw[b - 1::8]
    return bytes(out)


def merge(runs: list[bytes]) -> tuple[array, bytes]:
    """The level's keys in breadth-first order and, position by position, their owners."""
    allkeys = array("Q")
    for run in runs:
        allkeys.frombytes(run)
    merged = array("Q", sorted(allkeys))
    if not _LITTLE:
        return array("Q", [v >> TAG_BITS for v in merged]), bytes(v & 0xFF for v in merged)
    raw = merged.tobytes()
    out = bytearray(len(raw))
    for b in range(7):
        out[b::8] = raw[b + 1::8]
    keys = array("Q")
    keys.frombytes(bytes(out))
    return keys, raw[0::8]


def numbers_of(tags: bytes, owner: int, offset: int) -> array:
    """The numbers of ``owner``'s states in a level whose first state is number ``offset``."""
    mine = tags.translate(bytes(int(i == owner) for i in range(256)))
    return array("Q", compress(range(offset, offset + len(tags)), mine))
