"""The merge's order of candidates (``steps.best_first``): by fingerprint, then parent, then action,
so the first candidate of each fingerprint is its best parent on any number of executors. No Spark."""

from __future__ import annotations

import pytest
from isrcheck.explorer.search.spark import steps
from isrcheck.explorer.search.spark.blocks import encode_states

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


def test_merge_where_high_halves_collide() -> None:
    """``steps.merge`` sorts and searches on the fingerprints' high 8 bytes (``steps.high``); where
    fingerprints share them (made common here: only a few high halves), its visited set, new
    fingerprints and best parents are those of a plain sort of whole fingerprints."""
    from isrcheck.explorer.search.spark.level import Context

    rng = np.random.default_rng(11)

    def fps_of(n: int) -> list[bytes]:
        his = rng.integers(0, 4, n).astype(">u8").tobytes()
        los = rng.integers(0, 50, n).astype(">u8").tobytes()
        return [his[8 * i:8 * i + 8] + los[8 * i:8 * i + 8] for i in range(n)]

    class Model:
        def init_states(self) -> list:
            return []

        def successors(self, state: object) -> list:
            return []

    ctx = Context(Model(), type("P", (), {"always": [], "sometimes": []})(), False, False)
    seen = sorted(set(fps_of(120)))
    runs = [fp for fp in set(fps_of(30)) if fp not in seen]
    blocks, cands = [], []
    for b in range(3):
        fps = fps_of(150)
        parents = [bytes([b]) * 16 for _ in fps]
        actions = [int(a) for a in rng.integers(0, 5, len(fps))]
        blocks.append((b"".join(fps), b"".join(parents), np.array(actions, dtype="<u4").tobytes(),
                       encode_states(list(range(len(fps))))))
        cands += [(fp, p, a, i) for i, (fp, p, a) in enumerate(zip(fps, parents, actions, strict=True))]
    visited, (new, parents_out, actions_out), states, rep = steps.merge(
        ctx, b"".join(seen), blocks, frozenset(), frozenset(), b"".join(sorted(runs)), True)
    best: dict[bytes, tuple] = {}
    for fp, p, a, i in cands:
        if fp not in seen and fp not in runs and (fp not in best or (p, a) < best[fp][:2]):
            best[fp] = (p, a, i)
    want = sorted(best)
    assert new == b"".join(want)
    assert parents_out == b"".join(best[fp][0] for fp in want)
    assert np.frombuffer(actions_out, dtype="<u4").tolist() == [best[fp][1] for fp in want]
    assert states == [best[fp][2] for fp in want]
    assert visited == b"".join(sorted({*seen, *runs, *want}))
    assert rep["new"] == len(want)


def test_membership_of_a_few_keys_is_the_high_half_search() -> None:
    """A small level's few candidates are searched on whole fingerprints (``steps.FEW``) instead of
    the array's high halves: both give the same membership, where high halves collide too, and for
    keys before, inside and past the array."""
    rng = np.random.default_rng(5)
    his = rng.integers(0, 6, 4000).astype(">u8").tobytes()
    los = rng.integers(0, 1000, 4000).astype(">u8").tobytes()
    stored = np.unique(np.frombuffer(b"".join(his[8 * i:8 * i + 8] + los[8 * i:8 * i + 8]
                                              for i in range(4000)), dtype="S16"))
    keys = np.concatenate([stored[rng.integers(0, len(stored), 20)],
                           np.frombuffer(rng.integers(0, 8, 20 * 16, dtype=np.uint8).tobytes(), dtype="S16"),
                           np.array([b"\x00" * 16, b"\xff" * 16], dtype="S16")])
    keys.sort()
    assert len(keys) * steps.FEW < len(stored)  # the whole-fingerprint path
    few = steps._member(stored, keys)
    assert few.tolist() == steps._member(stored, keys, steps.high(stored)).tolist()
    assert few.tolist() == [k in set(stored.tolist()) for k in keys.tolist()]
    assert 0 < few.sum() < len(keys)
