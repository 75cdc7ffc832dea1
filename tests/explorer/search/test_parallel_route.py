"""The compiled routing and settling of the sharded workers (explorer/search/parallel/_route.c)
against their Python definitions (explorer/search/parallel/route.py and Shard.settle_keys): the
same keys to the same owners in the same order, the same new states with the same discovery keys."""

from __future__ import annotations

import random
from array import array

import pytest
from isrcheck.explorer.search.parallel import route as routing
from isrcheck.explorer.search.parallel.route import route_python, settle_compiled
from isrcheck.explorer.search.parallel.shard import SPREAD, Shard


def test_the_extension_is_built():
    assert routing.COMPILED, "explorer/search/parallel/_route.c is not built: rebuild with pip install -e ."


def _routed(fn, out, pack, sent, visited, workers):
    keys = [[] for _ in range(workers)]
    wheres = [[] for _ in range(workers)]
    done = fn(out, 7 << 24, pack, sent, visited, workers, SPREAD, keys, wheres)
    return done, keys, wheres, sorted(sent, key=repr)


@pytest.mark.parametrize("workers", [1, 2, 3, 16])
@pytest.mark.parametrize("packed", [True, False])
def test_route_in_c_is_route_in_python(workers, packed):
    if not routing.COMPILED:
        pytest.fail("the _route extension is not built")
    rng = random.Random(workers)
    for _ in range(200):
        # keys repeat within a state, some are known; negative ints and tuples hash below zero
        states = [(rng.randrange(-40, 40), rng.randrange(3)) for _ in range(rng.randrange(12))]
        out = [(f"a{i}", s) for i, s in enumerate(states)]
        pack = (lambda s: s[0] * 3 + s[1]) if packed else None
        known = {pack(s) if pack else s for s in states if rng.random() < 0.3}
        sent = {pack(s) if pack else s for s in states if rng.random() < 0.2}
        c = _routed(routing._COMPILED, out, pack, set(sent), set(known), workers)
        py = _routed(route_python, out, pack, set(sent), set(known), workers)
        assert c[0] is True and c[1:] == py[1:]


def test_route_leaves_what_is_not_a_list_of_pairs_to_python():
    if not routing.COMPILED:
        pytest.fail("the _route extension is not built")
    keys, wheres = [[]], [[]]
    assert routing._COMPILED(iter([("a", 1)]), 0, None, set(), set(), 1, SPREAD, keys, wheres) is False
    assert routing._COMPILED([("a", 1, 2)], 0, None, set(), set(), 1, SPREAD, keys, wheres) is False
    assert keys == [[]] and wheres == [[]]
    routing.route(iter([("a", 1), ("b", 1), ("c", 2)]), 0, None, set(), set(), 1, SPREAD, keys, wheres)
    assert keys == [[1, 2]] and wheres == [[0, 2]]


def test_route_raises_what_pack_and_hash_raise():
    if not routing.COMPILED:
        pytest.fail("the _route extension is not built")
    with pytest.raises(TypeError, match="unhashable"):
        routing.route([("a", [1])], 0, None, set(), set(), 2, SPREAD, [[], []], [[], []])
    with pytest.raises(ZeroDivisionError):
        routing.route([("a", 0)], 0, lambda s: 1 // s, set(), set(), 2, SPREAD, [[], []], [[], []])


class _Settler:
    """Shard.settle_keys' Python code, without a shard."""

    def __init__(self, visited: set) -> None:
        self.visited = type("V", (), {"keys": visited})()
        self.me = 0


@pytest.mark.parametrize("sources", [1, 2, 5])
def test_settle_in_c_is_settle_in_python(sources, monkeypatch):
    if not routing.COMPILED:
        pytest.fail("the _route extension is not built")
    rng = random.Random(sources)
    for _ in range(100):
        visited = {rng.randrange(60) for _ in range(20)}
        parents = sorted(rng.sample(range(1000), 30))
        payload = []
        for s in range(sources):
            mine = [p for p in parents if p % sources == s]  # each parent expanded by one source
            keys, where = [], array("Q")
            seen: set[int] = set()
            for p in mine:
                for idx in range(rng.randrange(4)):
                    k = rng.randrange(60)
                    if k in seen or (s == 0 and k in visited):  # as routed: once per source, own ones new
                        continue
                    seen.add(k)
                    keys.append(k)
                    where.append((p << 24) | idx)
            payload.append((keys, None, where.tobytes()))
        c_visited = set(visited)
        frontier, discovered = settle_compiled([k for k, _, _ in payload], [w for _, _, w in payload], c_visited)
        monkeypatch.setattr("isrcheck.explorer.search.parallel.shard.settle_compiled", lambda *a: None)
        settler = _Settler(set(visited))
        py_frontier, py_discovered = Shard.settle_keys(settler, payload)
        monkeypatch.undo()
        assert frontier == py_frontier and list(discovered) == list(py_discovered)
        assert c_visited == settler.visited.keys


def _expand_python(items, numbers, unpack, successors, pack, sent, visited, workers, keys, wheres, most):
    """The compiled expand's definition: the Python loop of Shard.expand's common case."""
    counts, empty = [], -1
    for pos, (item, number) in enumerate(zip(items, numbers, strict=True)):
        out = list(successors(unpack(item)))
        if len(out) > most or not all(isinstance(p, tuple) and len(p) == 2 for p in out):
            return counts, empty, pos
        counts.append(len(out))
        if not out and empty < 0:
            empty = number
        route_python(out, number << 24, pack, sent, visited, workers, SPREAD, keys, wheres)
    return counts, empty, len(items)


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_expand_in_c_is_the_python_loop(workers):
    if not routing.COMPILED:
        pytest.fail("the _route extension is not built")
    rng = random.Random(workers)

    def successors(state):  # a generator: the C loop makes it a list, as Python does
        a, b = state
        return iter([(f"x{i}", ((a * 7 + i * b) % 50, (b + i) % 5)) for i in range((a + b) % 6)])

    def run(fn, items, numbers, most):
        sent = {(3, 1), (10, 2)} if workers > 1 else set()
        visited = {(0, 0), (7, 1)}
        keys, wheres = [[] for _ in range(workers)], [[] for _ in range(workers)]
        if fn is None:
            got = routing.expand_compiled(items, array("Q", numbers).tobytes(), lambda s: s, successors,
                                          lambda s: s, sent, visited, workers, SPREAD, keys, wheres, 24, most)
        else:
            got = fn(items, numbers, lambda s: s, successors, lambda s: s, sent, visited, workers, keys, wheres, most)
        return tuple(got), keys, wheres, sorted(sent)

    for _ in range(50):
        items = [(rng.randrange(50), rng.randrange(5)) for _ in range(rng.randrange(1, 40))]
        numbers = sorted(rng.sample(range(10**6), len(items)))
        for most in (5, 100):  # 5: some states have more, and the compiled loop leaves them to Python
            c, py = run(None, items, numbers, most), run(_expand_python, items, numbers, most)
            assert c == py
    # successors that are not pairs: the loop stops there
    assert routing.expand_compiled([1, 2], array("Q", [0, 1]).tobytes(), None,
                                   lambda s: [("a", s)] if s == 1 else [["a", s]], None, set(), set(), 1, SPREAD,
                                   [[]], [[]], 24, 100) == ([1], -1, 1)
