"""A level's breadth-first order, recovered from its shards by one merge of sorted keys.

A one-process breadth-first search numbers a level's new states in the order it discovers them:
by the key ``(parent number << INDEX_BITS) | successor index`` of each state's first discovery,
which is the smallest such key among all the steps of the level that reach it. The shards of the
parallel engine each know, for the new states they own, that smallest key (``shard``), and send
them sorted. The level's numbering is then the merge of those sorted runs, and each shard needs
back only which of the merged positions are its own: the owner of each position, one byte (a
*tag*), is all the coordinator sends.

The merge itself is split among the workers, so that no per-state work is left to the coordinator:
worker ``w`` merges the keys whose parents are in the ``w``-th part of the frontier
(``split_points``, ``merge_range``), and the coordinator only joins the parts, in order, and
takes them apart. Every key is shifted left by 8 bits with its owner in the low byte (``tag``,
by strided byte copies in C); a part is merged by ``sorted`` (Timsort finds the sorted runs and
merges them, in C); tags and keys are taken apart again with strided byte slices (``untag``).
That layout needs at most 256 workers (``MAX_WORKERS``; the engine uses no more) and parent
numbers below 2**32 (four billion states, far beyond what a Python process holds; the engine
refuses more).
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from itertools import compress

from isrcheck.explorer.search.parallel.worker import INDEX_BITS

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
    return untag(merge_range(runs, 0, None))


def merge_range(runs: list[bytes], low: int, high: int | None) -> bytes:
    """The tagged keys of ``runs`` (each sorted) from ``low`` up to ``high`` (excluded; None: no
    bound), merged: one worker's part of a level's merge (``split_points``)."""
    part = array("Q")
    for run in runs:
        keys = array("Q")
        keys.frombytes(run)
        start = bisect_left(keys, low)
        end = len(keys) if high is None else bisect_left(keys, high)
        part.extend(keys[start:end])
    return array("Q", sorted(part)).tobytes()


def split_points(first: int, size: int, parts: int) -> list[tuple[int, int | None]]:
    """``parts`` ranges of tagged keys for a level whose parents are numbered ``first`` to
    ``first + size``: by parent number, an equal share of the frontier each, so the workers merge
    about as many keys each."""
    shift = INDEX_BITS + TAG_BITS
    bounds = [(first + size * i // parts) << shift for i in range(parts)]
    return [(0 if i == 0 else bounds[i], bounds[i + 1] if i + 1 < parts else None) for i in range(parts)]


def untag(tagged: bytes) -> tuple[array, bytes]:
    """Tagged keys (``tag``), merged, taken apart: the keys and their owners."""
    merged = array("Q")
    merged.frombytes(tagged)
    if not _LITTLE:
        return array("Q", [v >> TAG_BITS for v in merged]), bytes(v & 0xFF for v in merged)
    out = bytearray(len(tagged))
    for b in range(7):
        out[b::8] = tagged[b + 1::8]
    keys = array("Q")
    keys.frombytes(bytes(out))
    return keys, tagged[0::8]


def numbers_of(tags: bytes, owner: int, offset: int) -> array:
    """The numbers of ``owner``'s states in a level whose first state is number ``offset``."""
    mine = tags.translate(bytes(int(i == owner) for i in range(256)))
    return array("Q", compress(range(offset, offset + len(tags)), mine))
