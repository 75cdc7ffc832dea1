"""The expansion tasks' map side in C (``spark/fast.py``, ``spark/_blocks.c``) against the Python
steps it replaces (``steps.expand`` and ``steps.split``): the same candidate blocks byte for byte,
the same reports, the same fingerprints as ``level.packed_key``. No Spark."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest
from isrcheck.explorer.search.spark import fast, steps
from isrcheck.explorer.search.spark.blocks import FP
from isrcheck.explorer.search.spark.level import Context, packed_key
from isrcheck.explorer.search.spark.tasks import split_fps
from isrcheck.explorer.selection import select_properties

REBUILD = ("the C extension explorer/search/spark/_blocks.c was not built here (or ISRCHECK_PURE_PYTHON is set): "
           "rebuild it with `pip install -e .`")


def test_extension_was_built() -> None:
    assert fast.COMPILED, REBUILD


def test_digest_is_hashlibs_blake2b() -> None:
    """The C BLAKE2b-128 with the packed states' personalization, on one, two and three blocks."""
    assert fast.COMPILED, REBUILD
    rng = random.Random(3)
    for size in (0, 1, 31, 127, 128, 129, 255, 256, 257, 300):
        data = bytes(rng.randrange(256) for _ in range(size))
        want = hashlib.blake2b(data, digest_size=16, person=b"isrcheck-packed").digest()
        assert fast._MODULE.digest(data) == want, size


def _candidates(ctx: Context, blocks: list[tuple[bytes, list[Any]]], partitions: int) -> tuple[Any, Any]:
    """(C, Python): the reports and the split blocks of the same frontier blocks."""
    cands_c, cands_py = fast.Candidates(), {}
    reps_c, reps_py = [], []
    for i, (fps, packed) in enumerate(blocks):
        reps_c.append(fast.expand(ctx, fps, packed, cands_c, audit=2 if i == 0 else 0))
        reps_py.append(steps.expand(ctx, split_fps(fps), packed, frozenset(), cands_py, 2 if i == 0 else 0)[1])
    return (reps_c, fast.split(ctx, cands_c, partitions)), (reps_py, steps.split(ctx, cands_py, partitions))


def test_classic_levels_as_the_python_steps() -> None:
    """A few thousand KIP-320 states, in fingerprint order and shuffled (so later parents must win
    the comparison), in two blocks of one task: the same blocks and reports on 1, 2 and 5 partitions."""
    assert fast.COMPILED, REBUILD
    from isrcheck.model import make_model

    model = make_model(generation="kip320", replicas=3, log_size=2, max_records=2, max_leader_epoch=2)
    ctx = Context(model, select_properties(model, None), False, False)
    assert fast.applies(ctx, frozenset())
    frontier = {ctx.pack(s) for s in model.init_states()}
    seen = set(frontier)
    for _ in range(8):
        frontier = {q for p in frontier for _, t in model.successors(ctx.unpack(p)) if (q := ctx.pack(t)) not in seen}
        seen |= frontier
    states = sorted(frontier, key=packed_key)
    assert len(states) > 1000
    rng = random.Random(5)
    shuffled = states[:]
    rng.shuffle(shuffled)
    for order in (states, shuffled):
        half = len(order) // 2
        blocks = [(b"".join(map(packed_key, part)), part) for part in (order[:half], order[half:])]
        for partitions in (1, 2, 5):
            compiled, python = _candidates(ctx, blocks, partitions)
            assert compiled == python
            assert sum(r["generated"] for r in compiled[0]) > len(states)


class _Tiny:
    """A model that packs into an int, except one state it leaves as a tuple (a ``pack`` may),
    whose successors are lists rather than pairs, and with states without successors."""

    def init_states(self) -> list[tuple[int, int]]:
        return [(0, 0)]

    def successors(self, state: tuple[int, int]) -> Any:
        a, b = state
        if a + b >= 6:
            return iter(())  # a deadlock, given as an iterator
        return [["inc-a", (a + 1, b)], ["inc-b", (a, b + 1)], ["same", (b, a)]]

    def pack(self, state: tuple[int, int]) -> Any:
        return state if state == (2, 2) else (state[0] << 40) | state[1]

    def unpack(self, packed: Any) -> tuple[int, int]:
        return packed if isinstance(packed, tuple) else (packed >> 40, packed & ((1 << 40) - 1))

    def properties(self) -> list:
        return []


def test_odd_successors_unpacked_keys_and_deadlocks() -> None:
    """Successors given as lists of lists, a key ``pack`` left as a tuple (fingerprinted by
    ``key_of``), and states without successors (the smallest fingerprint reported)."""
    assert fast.COMPILED, REBUILD
    model = _Tiny()
    ctx = Context(model, select_properties(model, None), False, True)
    assert fast.applies(ctx, frozenset())
    packed = [model.pack((a, b)) for a in range(7) for b in range(7)]
    blocks = [(b"".join(map(ctx.key_of_ident, packed)), packed)]
    compiled, python = _candidates(ctx, blocks, 3)
    assert compiled == python
    assert compiled[0][0]["deadlock"] is not None
    tuple_key = ctx.key_of_ident((2, 2))
    assert any(tuple_key in fps[i:i + FP] for fps, *_ in compiled[1].values() for i in range(0, len(fps), FP))


def test_bad_successors_raise() -> None:
    """A successor that is not a pair is an error, as unpacking it in ``steps.expand`` is."""
    assert fast.COMPILED, REBUILD

    class Bad(_Tiny):
        def successors(self, state: tuple[int, int]) -> Any:
            return [("only-an-action",)]

    ctx = Context(Bad(), select_properties(Bad(), None), False, False)
    with pytest.raises(ValueError):
        fast.expand(ctx, packed_key(0), [0], fast.Candidates())


def test_int_fingerprints_are_packed_keys() -> None:
    """Ints of every marshal form (small, negative, 31 to 2000 bits) fingerprint as ``packed_key``."""
    assert fast.COMPILED, REBUILD
    keys = [0, 1, -1, -5, 2**31 - 1, 2**31, -2**31, 2**63, 7 << 170, (1 << 2000) + 12345]
    out = fast._MODULE.split(keys, bytearray(FP * len(keys)), bytearray(4 * len(keys)), 4, packed_key)
    got = {k: fps[i * FP:(i + 1) * FP] for fps, _, _, ks in out.values() for i, k in enumerate(ks)}
    assert got == {k: packed_key(k) for k in keys}


def test_check_new_in_c_as_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """``steps.check_new`` through ``fast.first`` reports what its Python loop reports: per
    property the smallest fingerprint that violates it (``always``) or reaches it (``sometimes``)."""
    assert fast.COMPILED, REBUILD
    from isrcheck.explorer.contract import Kind, Property
    from isrcheck.explorer.selection import Selected

    model = _Tiny()
    props = Selected(always=(Property("small", Kind.ALWAYS, lambda s: s[0] + s[1] < 9),
                             Property("holds", Kind.ALWAYS, lambda s: True)),
                     sometimes=(Property("diag", Kind.SOMETIMES, lambda s: s[0] == s[1] > 1),
                                Property("never", Kind.SOMETIMES, lambda s: False)),
                     transition=())
    ctx = Context(model, props, False, False)
    packed = sorted((model.pack((a, b)) for a in range(7) for b in range(7)), key=ctx.key_of_ident)
    fps = b"".join(map(ctx.key_of_ident, packed))
    names = (frozenset({"small", "holds"}), frozenset({"diag", "never"}))
    reports = []
    for compiled in (True, False):
        monkeypatch.setattr(fast, "COMPILED", compiled)
        rep = steps.new_report()
        steps.check_new(ctx, fps, packed, *names, rep)
        reports.append(rep)
    assert reports[0] == reports[1]
    assert set(reports[0]["always"]) == {"small"} and set(reports[0]["sometimes"]) == {"diag"}


def test_best_is_the_full_order() -> None:
    """``fast.best`` orders candidates by (fingerprint, parent, action, position), as a four-key
    ``lexsort`` does, where high halves are random and where many share them (runs sorted by
    insertion, and a run longer than 32 by ``qsort``)."""
    assert fast.COMPILED, REBUILD
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(9)
    for n in (0, 1, 2, 40, 3000):
        for spread in (1, 3, 2**40):
            halves = np.stack([rng.integers(0, spread, n).astype(">u8"), rng.integers(0, 3, n).astype(">u8")], 1)
            fps = np.frombuffer(halves.tobytes(), dtype="S16")
            parents = np.frombuffer(rng.integers(0, 2, n * 16, dtype=np.uint8).tobytes(), dtype="S16")
            actions = rng.integers(0, 3, n).astype("<u4")
            want = np.lexsort((np.arange(n), actions, parents, fps))
            assert fast.best(fps, parents, actions).tolist() == want.tolist()
