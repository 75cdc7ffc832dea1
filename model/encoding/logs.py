"""Records and replica logs as small ints, with precomputed tables (``FiniteReplicatedLog.tla``).

What is modelled: a replica's log is a sequence of at most ``LogSize`` records; a record is a
unique producer id (``RecordSeq``) stamped with the leader epoch of the leader that appended it
(the KIP-101 message-format field; pre-0.11 generations simply ignore the epoch, as the spec does).

Encoding (pure function of the content, so identical in every process):

- record ``rec = id * epochs + epoch`` with ``epochs = MaxLeaderEpoch + 1``;
- log ``code = sum((rec_k + 1) * base**k)`` over its offsets k, ``base = records + 1``; the empty
  log is 0 and a log's end offset is its number of nonzero digits.

Appending record ``rec`` at end offset ``k`` is ``code + (rec + 1) * base**k``; truncating to end
offset ``k`` is ``code % base**k``. Per-log facts (length, epochs by offset, ...) are lists indexed
by code; facts about a pair of logs are memoised on demand.

Abstracted away: record payloads, batches, segments, the on-disk leader-epoch cache (epochs are
read straight off the records, as in the spec).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from ..config import ClassicConfig


class PairTable(dict):
    """A memo over pairs of log codes, keyed ``a * size + b``: a hit is one dict access (no call),
    a miss computes ``compute(a, b)`` once."""

    def __init__(self, size: int, compute: Callable[[int, int], int]) -> None:
        super().__init__()
        self.size = size
        self.compute = compute

    def __missing__(self, key: int) -> int:
        value = self[key] = self.compute(*divmod(key, self.size))
        return value


class LogTables:
    """Tables over every possible log of one configuration."""

    def __init__(self, config: ClassicConfig) -> None:
        self.epochs = config.max_leader_epoch + 1
        self.record_kinds = config.max_records * self.epochs
        self.base = self.record_kinds + 1
        self.log_size = config.log_size
        self.pow = tuple(self.base**k for k in range(config.log_size + 1))
        size = self.pow[config.log_size]
        self.size = size
        # Unary tables, None for codes that are not logs (a zero digit below a nonzero one).
        self.records: list[tuple[int, ...] | None] = [None] * size
        self.length: list[int] = [-1] * size
        self.epoch_at: list[tuple[int, ...] | None] = [None] * size
        self.last_epoch: list[int] = [-2] * size
        for code in range(size):
            recs = self._decode(code)
            if recs is None:
                continue
            self.records[code] = recs
            self.length[code] = len(recs)
            self.epoch_at[code] = tuple(r % self.epochs for r in recs)
            self.last_epoch[code] = recs[-1] % self.epochs if recs else -1

    def _decode(self, code: int) -> tuple[int, ...] | None:
        recs = []
        while code:
            code, digit = divmod(code, self.base)
            if digit == 0:
                return None
            recs.append(digit - 1)
        return tuple(recs)

    # -- encoding helpers (not on the hot path) -------------------------------------------------

    def record(self, record_id: int, epoch: int) -> int:
        return record_id * self.epochs + epoch

    def record_id(self, rec: int) -> int:
        return rec // self.epochs

    def record_epoch(self, rec: int) -> int:
        return rec % self.epochs

    def encode(self, recs: tuple[int, ...]) -> int:
        if len(recs) > self.log_size:
            raise ValueError(f"a log holds at most {self.log_size} records, got {len(recs)}")
        return sum((rec + 1) * self.pow[k] for k, rec in enumerate(recs))

    def is_log(self, code: object) -> bool:
        return isinstance(code, int) and 0 <= code < self.size and self.records[code] is not None

    # -- pairwise facts, memoised -----------------------------------------------------------------

    def common_prefix(self, a: int, b: int) -> int:
        """How many leading offsets hold the same record in logs ``a`` and ``b``."""
        ra, rb = self.records[a], self.records[b]
        k = 0
        for x, y in zip(ra, rb, strict=False):
            if x != y:
                break
            k += 1
        return k

    @cached_property
    def common_prefixes(self) -> PairTable:
        """``common_prefixes[a * size + b]`` = ``common_prefix(a, b)``, memoised (shared by the
        properties that compare logs)."""
        return PairTable(self.size, self.common_prefix)

    @cached_property
    def id_masks(self) -> list[int]:
        """Per log code: the bit mask of the record ids it holds (0 for codes that are not logs)."""
        masks = [0] * self.size
        for code, recs in enumerate(self.records):
            for rec in recs or ():
                masks[code] |= 1 << self.record_id(rec)
        return masks
