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
