"""The merge's order of candidates (``steps.best_first``): by fingerprint, then parent, then action,
so the first candidate of each fingerprint is its best parent on any number of executors. No Spark."""

from __future__ import annotations

import pytest
from isrcheck.explorer.search.spark import steps

np = pytest.importorskip("numpy")


def test_best_first_orders_as_a_three_key_sort() -> None:
    """``steps.best_first`` (a stable sort, then the repeated fingerprints on all three keys)
    orders candidates as ``lexsort`` on (fingerprint, parent, action) does."""
    rng = np.random.default_rng(7)
    for n in (0, 1, 50, 2000):
        fps = np.frombuffer(rng.integers(0, 40, n * 16, dtype=np.uint8).tobytes(), dtype="S16")
        fps = fps[rng.integers(0, max(n // 3, 1), n)] if n else fps  # many repeated fingerprints
        parents = np.frombuffer(rng.integers(0, 3, n * 16, dtype=np.uint8).tobytes(), dtype="S16")
        actions = rng.integers(0, 4, n).astype("<u4")
        order, ordered = steps.best_first(fps, parents, actions)
        want = np.lexsort((actions, parents, fps))
        keys = list(zip(fps.tolist(), parents.tolist(), actions.tolist(), strict=True))
        assert [keys[i] for i in order] == [keys[i] for i in want]
        assert ordered.tolist() == fps[want].tolist()


def test_runs_are_searched_and_merged_as_one_visited_set() -> None:
    """A visited set given as a sorted array and sorted runs (``steps.merge``'s ``runs``) finds the
    same new states as that set in one array, and with ``full`` returns that one array."""
    from types import SimpleNamespace

    from isrcheck.explorer.search.spark.blocks import encode_states

    rng = np.random.default_rng(11)
    every = np.unique(np.frombuffer(rng.bytes(16 * 3000), dtype="S16"))
    base, run1, run2 = (np.sort(every[i::3]) for i in range(3))
    cands = np.concatenate([every[rng.integers(0, len(every), 400)], np.frombuffer(rng.bytes(16 * 300), dtype="S16")])
    blocks = [(cands.tobytes(), np.zeros(len(cands), dtype="S16").tobytes(),
               np.arange(len(cands), dtype="<u4").tobytes(), encode_states(list(range(len(cands)))))]
    ctx = SimpleNamespace(props=SimpleNamespace(always=[], sometimes=[]), unpack=lambda x: x)
    none = frozenset()
    whole = steps.merge(ctx, every.tobytes(), blocks, none, none)
    for full in (True, False):
        split = steps.merge(ctx, base.tobytes(), blocks, none, none, [run1.tobytes(), run2.tobytes()], full)
        assert split[1:3] == whole[1:3]
        assert len(split[2]) == 300  # the unknown candidates, each new
        assert split[0] == (whole[0] if full else base.tobytes())
    assert steps.merge(ctx, base.tobytes(), [], none, none, [run1.tobytes(), run2.tobytes()])[0] == every.tobytes()
