"""The sharded parallel engine's own pieces: the merge that recovers a level's breadth-first order,
more workers than the search has use for, the serial-fraction figures, and the memory ceiling
counted over the coordinator and its workers together. The equivalence with one process on every
fixture is tests/explorer/search/test_parallel.py's."""

from __future__ import annotations

import random
from array import array

import pytest
from isrcheck.explorer.search.memory import rss_bytes
from isrcheck.explorer.search.parallel import run_parallel
from isrcheck.explorer.search.parallel.merge import LARGEST_KEY, merge, numbers_of, tag
from isrcheck.explorer.selection import select_properties

from isrcheck import check
from tests.explorer.search.test_parallel import FIXTURES, outcome
from tests.fixtures.models import Counters


@pytest.mark.parametrize("workers", [1, 2, 3, 7, 256])
def test_the_merge_is_the_sorted_union_and_gives_each_owner_its_numbers(workers: int):
    rng = random.Random(workers)
    pool = rng.sample(range(LARGEST_KEY - 10**6, LARGEST_KEY + 1), 3000) + rng.sample(range(10**6), 3000)
    runs = [array("Q", sorted(pool[w::workers])) for w in range(workers)]
    keys, tags = merge([tag(run, w) for w, run in enumerate(runs)])
    assert list(keys) == sorted(pool) and len(tags) == len(pool)
    for w, run in enumerate(runs):
        numbers = numbers_of(tags, w, 100)
        assert [keys[n - 100] for n in numbers] == list(run)


def test_an_empty_level_merges_to_nothing():
    keys, tags = merge([tag(array("Q"), 0), tag(array("Q"), 1)])
    assert list(keys) == [] and tags == b""


@pytest.mark.parametrize("store", ["exact", "fingerprint"])
@pytest.mark.parametrize("name,make,options", [f for f in FIXTURES if f[0] in
                                               ("counters bug, stop", "bits transition, stop", "chain deadlock",
                                                "counters symmetry")], ids=lambda f: f if isinstance(f, str) else "")
def test_more_workers_than_states_give_the_same_results(name, make, options, store):
    one = outcome(check(make(), workers=1, store=store, **options))
    for workers in (4, 9):
        many = run_parallel(make(), select_properties(make()), workers=workers, inline_below=0, store=store,
                            **options)
        assert outcome(many) == one, f"{workers} workers differ from 1"


def test_the_run_reports_its_serial_part_and_its_workers_work():
    model = Counters(3, 12)
    r = run_parallel(model, select_properties(model), workers=2, inline_below=0)
    stats = r.stats
    assert stats["parallel_seconds"] > 0 and stats["worker_cpu_seconds"] > 0
    assert 0 <= stats["serial_seconds"] <= r.elapsed
    inline = run_parallel(model, select_properties(model), workers=2)  # 1,728 states, no level of 2,048: never forks
    assert inline.stats["parallel_seconds"] == 0 and outcome(inline) == outcome(r)


def test_the_memory_ceiling_counts_the_workers_too():
    """Each forked worker is resident too: a ceiling above the coordinator's own memory but below
    the run's stops it once the workers exist (by default the ceiling reads every process)."""
    model = Counters(3, 12)
    own = rss_bytes()
    if own is None:
        pytest.skip("no /proc")
    r = run_parallel(model, select_properties(model), workers=2, inline_below=0, memory_limit=int(own * 1.6))
    assert r.limit == "memory" and not r.complete and r.distinct_states > 0
    full = run_parallel(model, select_properties(model), workers=2, inline_below=0)
    assert full.complete and full.distinct_states == 12**3
