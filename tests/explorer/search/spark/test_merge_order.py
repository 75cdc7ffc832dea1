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
