"""The full level's merge in C (``fast.fresh``, ``fast.insert``, ``fast.pick``) against the NumPy
path it replaces (``steps.best_first``, ``steps._member``, ``np.insert``, decoding every block): the
same new candidates, the same merged visited array, the same states, on random inputs where
fingerprints repeat and share their high halves. No Spark."""

from __future__ import annotations

import pickle

import pytest
from isrcheck.explorer.search.spark import fast, steps
from isrcheck.explorer.search.spark.blocks import decode_states, encode_states

np = pytest.importorskip("numpy")
pytestmark = pytest.mark.skipif(not fast.COMPILED, reason="the C extension is not built (ISRCHECK_PURE_PYTHON)")


def fingerprints(rng, n: int, highs: int, lows: int):
    """``n`` fingerprints drawn from ``highs`` high halves and ``lows`` low halves: many repeats,
    many pairs sharing a high half, and the extremes of both halves."""
    hi = rng.integers(0, highs, n).astype(">u8")
    lo = rng.integers(0, lows, n).astype(">u8")
    hi[rng.random(n) < 0.05] = np.iinfo(np.uint64).max
    lo[rng.random(n) < 0.05] = np.iinfo(np.uint64).max
    return np.frombuffer(np.stack([hi, lo], axis=1).tobytes(), dtype="S16")


def numpy_fresh(fps, parents, actions, seen):
    """The NumPy merge's new candidates: their positions, in fingerprint order."""
    order, ordered = steps.best_first(fps, parents, actions)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    unique, index = ordered[first], order[first]
    return index[~steps._member(seen, unique, steps.high(seen))]


@pytest.mark.parametrize("seed", range(6))
def test_fresh_and_insert_agree_with_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    highs, lows = [(3, 40), (50, 4), (1000, 1000), (2, 2), (10**6, 10**6), (5, 2**40)][seed]
    for n, m in ((0, 0), (0, 30), (40, 0), (1, 1), (700, 500), (3000, 9000)):
        seen = np.unique(fingerprints(rng, m, highs, lows))
        fps = fingerprints(rng, n, highs, lows)
        parents = np.frombuffer(rng.integers(0, 3, n * 16, dtype=np.uint8).tobytes(), dtype="S16")
        actions = rng.integers(0, 4, n).astype("<u4")
        got = fast.fresh(fps, parents, actions, seen)
        want = numpy_fresh(fps, parents, actions, seen)
        assert got.tolist() == want.tolist()
        add = fps[got]
        assert not steps._member(seen, add, steps.high(seen)).any()
        merged = fast.insert(seen, add)
        assert merged.tobytes() == np.insert(seen, steps._positions(seen, steps.high(seen), add), add).tobytes()
        assert merged.tobytes() == np.sort(np.concatenate([seen, add])).tobytes()


def test_fresh_reads_a_memory_mapped_visited_array(tmp_path) -> None:
    """A kept file (``resident.load``: a read-only ``np.memmap``) is read as it is."""
    from isrcheck.explorer.search.spark import resident

    rng = np.random.default_rng(3)
    seen = np.unique(fingerprints(rng, 5000, 100, 100))
    assert resident.keep(str(tmp_path), 0, 1, seen)
    mapped = resident.load(str(tmp_path), 0, 1)
    fps = fingerprints(rng, 4000, 100, 100)
    parents = np.frombuffer(bytes(4000 * 16), dtype="S16")
    actions = np.zeros(4000, dtype="<u4")
    assert fast.fresh(fps, parents, actions, mapped).tolist() == numpy_fresh(fps, parents, actions, seen).tolist()
    add = fps[fast.fresh(fps, parents, actions, mapped)]
    assert fast.insert(mapped, add).tobytes() == np.sort(np.concatenate([seen, add])).tobytes()


def test_pick_decodes_the_chosen_states_as_marshal_does() -> None:
    """``fast.pick`` of some positions over several blocks gives the states decoding the blocks
    whole would, for ints of every size and sign (marshal's 'i' and 'l' codes), tuples, None,
    booleans, floats and strings; None for a pickled block or a position given twice."""
    rng = np.random.default_rng(9)
    values = [0, 1, -1, 2**31 - 1, -2**31, 2**31, -2**31 - 1, 2**62, -2**62, 2**153 + 12345, -(2**300) - 7,
              2**959, 2**960 + 1, (1, (2, -3), ()), None, True, False, 1.5, "x", "état", (2**70, "a", None)]
    ints = [int(v) for v in rng.integers(-2**62, 2**62, 500)] + [int(v) << 90 for v in rng.integers(0, 2**40, 500)]
    states = values + ints
    order = rng.permutation(len(states))
    cut = [0, 10, 10, 600, len(states)]  # one empty block
    blocks = [encode_states([states[i] for i in order[a:b]]) for a, b in zip(cut, cut[1:], strict=False)]
    every = [s for blk in blocks for s in decode_states(blk)]
    for index in (np.arange(len(every)), rng.permutation(len(every))[:300], np.zeros(0, dtype=np.int64)):
        picked = fast.pick(blocks, index)
        assert picked == [every[i] for i in index.tolist()]
        assert [type(s) for s in picked] == [type(every[i]) for i in index.tolist()]
    assert fast.pick(blocks, np.array([3, 3])) is None
    assert fast.pick([blocks[0], b"P" + pickle.dumps([1, 2])], np.array([0])) is None
    assert fast.pick([bytearray(blocks[0])], np.array([0])) is None
    with pytest.raises(IndexError):
        fast.pick(blocks, np.array([len(every)]))


def test_merge_in_c_is_the_numpy_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    """``steps.merge`` of a full level, with runs of small levels and repeated fingerprints from
    several blocks, gives the same visited array, parent records, states and report with the C
    walk as without it (``fast.COMPILED`` off: the pure-Python build's path)."""
    from isrcheck.explorer.search.spark.level import Context

    class Model:
        def init_states(self) -> list:
            return []

        def successors(self, state: object) -> list:
            return []

    ctx = Context(Model(), type("P", (), {"always": [], "sometimes": []})(), False, False)
    rng = np.random.default_rng(21)
    for highs, lows in ((4, 60), (10**9, 10**9)):
        seen = np.unique(fingerprints(rng, 3000, highs, lows))
        runs = np.setdiff1d(np.unique(fingerprints(rng, 200, highs, lows)), seen)
        blocks = []
        for b in range(4):
            fps = fingerprints(rng, 900, highs, lows)
            parents = np.frombuffer(rng.integers(0, 2, 900 * 16, dtype=np.uint8).tobytes(), dtype="S16")
            actions = rng.integers(0, 3, 900).astype("<u4")
            blocks.append((fps.tobytes(), parents.tobytes(), actions.tobytes(),
                           encode_states([(b, i, 2**80 + i) for i in range(900)])))
        results = []
        for compiled in (True, False):
            monkeypatch.setattr(fast, "COMPILED", compiled)
            for visited in (seen.tobytes(), seen):
                out = steps.merge(ctx, visited, blocks, frozenset(), frozenset(), runs.tobytes(), True)
                results.append((bytes(np.asarray(out[0]).tobytes()) if not isinstance(out[0], bytes) else out[0],
                                out[1], out[2], out[3]["new"]))
        assert all(r == results[0] for r in results[1:])
        assert results[0][3] > 0
