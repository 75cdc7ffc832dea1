"""The parallel local engine gives the one-process engine's results for any number of workers:
counts, depth, verdicts, the violation each property reports with its trace (states, actions,
detail), the sometimes examples, and where a run stops at its first violation. Also the compact
stores' structure (what they merge, what they keep apart, what they cost per slot)."""

from __future__ import annotations

import subprocess
import sys
from array import array
from typing import NamedTuple

import pytest
from isrcheck.explorer.check import resolve_workers
from isrcheck.explorer.errors import ModelError, UserError
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.search.parallel import run_parallel
from isrcheck.explorer.search.store_compact import (
    ExactTable,
    FingerprintTable,
    canonical_bytes,
    fingerprint64,
    pack,
    unpack,
)
from isrcheck.explorer.selection import select_properties

from isrcheck import check
from tests.fixtures.classic import GENERATIONS, classic
from tests.fixtures.models import Bits, Chain, Counters, TwoStarts
from tests.fixtures.paths import ROOT
from tests.fixtures.states import reachable


def outcome(r):
    """Everything a user sees of a run, except timing."""
    return (
        r.distinct_states, r.generated_states, r.depth, r.complete, r.ok, r.vacuous,
        [(v.property, v.kind, v.detail, [(s.action, s.state) for s in v.trace.steps]) for v in r.violations],
        {name: [(s.action, s.state) for s in t.steps] for name, t in r.examples.items()},
        r.stats["frontier_left"], r.stats["stopped_at_violation"],
    )


def run(model, workers, *, properties=None, **options):
    """One process through ``isrcheck.explorer.check``; more through the parallel engine with every level
    sent to the workers (``inline_below=0``), so that even tiny models exercise the workers."""
    if workers == 1:
        return check(model, workers=1, properties=properties, **options)
    return run_parallel(model, select_properties(model, properties), workers=workers, inline_below=0, **options)


def same_for_every_worker_count(model, counts=(1, 2, 3), **options):
    results = [outcome(run(model, w, **options)) for w in counts]
    for w, r in zip(counts[1:], results[1:], strict=True):
        assert r == results[0], f"{w} workers differ from 1"
    return results[0]


FIXTURES = [
    ("counters", lambda: Counters(3, 4), {}),
    ("counters bug, stop", lambda: Counters(3, 4, bug_at=5), {}),
    ("counters bug, continue", lambda: Counters(3, 4, bug_at=5), {"stop_at_first": False}),
    ("counters symmetry", lambda: Counters(3, 4, bug_at=5), {"symmetry": True, "stop_at_first": False}),
    ("bits transition, stop", lambda: Bits(4), {}),
    ("bits continue", lambda: Bits(4), {"stop_at_first": False}),
    ("bits symmetry", lambda: Bits(4), {"symmetry": True, "stop_at_first": False}),
    ("chain deadlock", lambda: Chain(6), {"check_deadlock": True}),
    ("two starts", lambda: TwoStarts(), {"stop_at_first": False}),
    ("counters depth cut", lambda: Counters(3, 4), {"max_depth": 4}),
]


@pytest.mark.parametrize("store", ["exact", "fingerprint"])
@pytest.mark.parametrize("name,make,options", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixtures_same_results_for_1_2_3_workers(name, make, options, store):
    result = same_for_every_worker_count(make(), store=store, **options)
    assert result[0] > 0


def test_fixture_results_are_the_hand_counted_ones():
    # The equivalence above would hold for two equally wrong engines; pin one against the hand count.
    r = run(Counters(3, 4), 2)
    assert (r.distinct_states, r.depth, r.generated_states) == (64, 10, 1 + 3 * 3 * 16)
    bug = run(Counters(3, 4, bug_at=5), 3)
    (v,) = bug.violations
    assert v.property == "SumBelowBug" and len(v.trace) == 6 and v.detail == "sum of counters is 5"
    dead = run(Chain(6), 2, check_deadlock=True)
    assert dead.violations[0].property == "deadlock" and dead.violations[0].trace.last == 5


@pytest.mark.parametrize("generation", GENERATIONS)
def test_classic_2222_same_results_for_1_2_3_workers(generation):
    model = classic(generation=generation, replicas=2)
    full = same_for_every_worker_count(model, stop_at_first=False)
    assert full[3]  # complete
    same_for_every_worker_count(model, counts=(1, 2), store="fingerprint", symmetry=True)
    same_for_every_worker_count(model, counts=(1, 2), symmetry=True, stop_at_first=False)  # packed canonical keys


@pytest.mark.parametrize("generation", ["kip101", "truncate-to-hw"])
def test_classic_first_violation_stops_where_one_process_stops(generation):
    model = classic(generation=generation, replicas=2)
    result = same_for_every_worker_count(model, properties=["StrongIsr"])
    assert not result[3] and result[9]  # stopped at the violation, mid-level, with the same counts


@pytest.mark.slow
def test_kip320_3222_two_workers_match_one():
    model = classic(generation="kip320", replicas=3)
    one = check(model, workers=1, properties=["WeakIsr", "StrongIsr"])
    two = check(model, workers=2, properties=["WeakIsr", "StrongIsr"])
    assert outcome(one) == outcome(two)
    assert (two.distinct_states, two.depth) == (737_794, 26) and two.ok


class Exploding:
    """A model whose successors() raises at depth 3: the worker's error reaches the caller."""

    def init_states(self):
        return [0]

    def successors(self, state):
        if state == 2:
            raise ValueError("broken step at state 2")
        return [("inc", state + 1)]

    def properties(self):
        return []


def test_a_worker_error_reaches_the_caller_with_the_state_and_the_behaviour():
    with pytest.raises(ModelError, match="broken step at state 2") as info:
        run(Exploding(), 2)
    err = info.value
    assert err.what == "successors(state)" and err.state == 2 and isinstance(err.cause, ValueError)
    assert [s.state for s in err.trace.steps] == [0, 1, 2]


FAULTY = str(ROOT / "tests" / "fixtures" / "faulty.py")


def fault_report(workers, where):
    model = build_model(FAULTY, {"where": where})
    with pytest.raises(ModelError) as info:
        run(model, workers, symmetry=True)
    err = info.value
    steps = [(repr(s.action), s.state) for s in err.trace.steps] if err.trace is not None else None
    return err.what, str(err.cause), err.state, err.successor, steps


@pytest.mark.parametrize("where", ["successors", "predicate", "canonical", "within_bounds"])
def test_a_model_fault_in_a_worker_is_reported_as_one_process_reports_it(where):
    one = fault_report(1, where)
    assert one == fault_report(2, where)
    assert one[2] is not None and one[4]  # the state being expanded, and the behaviour to it


class FailsOnlyInWorkers:
    """successors() depends on the process: a contract breach the coordinator must name."""

    def __init__(self):
        import os

        self.pid = os.getpid()

    def init_states(self):
        return [0]

    def successors(self, state):
        import os

        if state == 3 and os.getpid() != self.pid:
            raise RuntimeError("only in a worker")
        return [("inc", state + 1)] if state < 6 else []

    def properties(self):
        from isrcheck.explorer.contract import Property

        return [Property.always("Small", lambda s: s < 100)]


def test_a_fault_only_a_worker_sees_is_named_a_nondeterministic_model():
    with pytest.raises(ModelError, match="only in a worker") as info:
        run(FailsOnlyInWorkers(), 2)
    assert "must be deterministic" in info.value.note


def test_workers_option_is_validated():
    assert resolve_workers(3) == 3
    assert resolve_workers(None) >= 1
    for bad in (0, -1, 1.5, True):
        with pytest.raises(UserError):
            resolve_workers(bad)
    with pytest.raises(UserError):
        resolve_workers(2, "spark")


@pytest.fixture
def no_fork(monkeypatch):
    """A platform without os.fork (Windows), on a machine with four cores: without the guard the
    default would be four forked workers."""
    import importlib
    import os

    import isrcheck.explorer.search.parallel

    monkeypatch.delattr(os, "fork")
    # the module, not the function explorer/__init__.py re-exports under the same name
    monkeypatch.setattr(importlib.import_module("isrcheck.explorer.check"), "available_cores", lambda: 4)

    def forks(*args, **kwargs):
        raise AssertionError("the parallel engine was started on a platform without os.fork")

    monkeypatch.setattr(isrcheck.explorer.search.parallel, "run_parallel", forks)


def test_without_fork_the_default_is_one_process(no_fork):
    assert resolve_workers(None) == 1
    result = check(Counters(3, 4, bug_at=5))
    # the one-process engine's result (the parallel engine's stats name its workers)
    assert "workers" not in result.stats
    assert outcome(result) == outcome(check(Counters(3, 4, bug_at=5), workers=1))
    assert [v.property for v in result.violations] == ["SumBelowBug"]


def test_without_fork_an_explicit_worker_count_is_refused(no_fork, capsys):
    from isrcheck.explorer.cli.main import main

    assert resolve_workers(1) == 1
    with pytest.raises(UserError, match=r"needs os\.fork.*use --workers 1"):
        check(Counters(3, 4), workers=2)
    racy = str(ROOT / "tests" / "fixtures" / "racy_lock.py")
    assert main(["check", racy, "--workers", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "os.fork" in err and "--workers 1" in err and "Traceback" not in err
    assert main(["check", racy, "--workers", "1", "--quiet"]) == 1  # the planted bug, found in one process


def test_cli_workers_flag_gives_the_same_output():
    import json
    import os

    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the JSON lists changed fields in set order

    def summary(*extra):
        out = subprocess.run([sys.executable, "-m", "isrcheck", "check", "classic", "--generation", "kip101",
                              "--quiet", "--json", *extra], capture_output=True, text=True, cwd=ROOT, env=env)
        assert out.returncode == 1, out.stderr
        data = json.loads(out.stdout)
        for timing in ("elapsed", "states_per_second", "stats"):
            data.pop(timing, None)
        return data

    one = summary("--workers", "1")
    assert one == summary("--workers", "2") and one["violations"]
    bad = subprocess.run([sys.executable, "-m", "isrcheck", "check", "classic", "--workers", "-2"],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "workers" in bad.stderr and "Traceback" not in bad.stderr


# -- the compact stores ----------------------------------------------------------------------------


class Pair(NamedTuple):
    a: int
    b: str


VALUES = [(), (0,), (-1,), (-2,), (1, 2, -1, (3, 4)), (0xF1, 0xF2, 241), ("a", frozenset({1, "b"})),
          (None, True, b"\xf1\xf2"), Pair(1, "x"), (2**70, -(2**40)), 5, frozenset()]


def test_pack_round_trips_every_kind_of_state():
    for v in VALUES:
        back = unpack(pack(v))
        assert back == v and type(back) is type(v), v


def test_exact_table_merges_equal_states_and_keeps_hash_collisions_apart():
    assert hash((-1,)) == hash((-2,))  # CPython: hash(-1) == hash(-2); the table must not merge them
    table = ExactTable(capacity=16)
    assert [table.add_state(v) for v in VALUES] == [True] * len(VALUES)
    assert [table.add_state(v) for v in VALUES] == [False] * len(VALUES)
    assert table.add_state(frozenset({"b", 1}) and ("a", frozenset({"b", 1}))) is False  # equal, built apart
    many = [(i, -i, (i % 7,)) for i in range(5000)]  # forces several table growths
    assert sum(table.add_state(v) for v in many) == 5000
    assert all(v in table for v in many) and (5000, 0, (1,)) not in table
    assert len(table) == len(VALUES) + 5000


def test_fingerprint_table_is_eight_bytes_a_slot_at_most_80_percent_full():
    table = FingerprintTable(capacity=16)
    fps = [fingerprint64((i, "x")) for i in range(20000)]
    assert all(table.add(fp) for fp in fps) and not any(table.add(fp) for fp in fps)
    slots = len(table.slots)
    assert table.slots.itemsize == 8 and len(table) == 20000 <= 0.8 * slots
    assert table.nbytes() == 8 * slots


def test_canonical_bytes_are_canonical_for_sets_and_strings():
    a = frozenset(["x" * 3, "y", 300])
    b = frozenset([300, "y", "".join(["x", "x", "x"])])  # equal, built in another order, not interned
    assert canonical_bytes(a) == canonical_bytes(b) and fingerprint64(("k", a)) == fingerprint64(("k", b))
    assert canonical_bytes((1, 2)) != canonical_bytes((1, 2, 0))
    # True == 1: one state to the one-process engine, so one fingerprint here, wherever it sits
    assert canonical_bytes(1) == canonical_bytes(True) and canonical_bytes(0) == canonical_bytes(False)
    assert canonical_bytes((84, (True, None), b"T")) == canonical_bytes((84, (1, None), b"T"))
    assert canonical_bytes((84, 70)) != canonical_bytes((1, 0))  # "T" and "F" payload bytes stay ints


def test_trace_keys_cost_five_bytes_a_state():
    r = run(Counters(3, 4), 2, store="fingerprint")
    # one initial state (1 byte); every other: a 4-byte parent number and a 1-byte successor index
    assert r.stats["trace_bytes"] == 5 * r.distinct_states - 4


# -- packed states, the memory ceiling, a worker that dies -------------------------------------------


@pytest.mark.parametrize("generation", GENERATIONS)
def test_classic_packing_is_exact_on_every_reachable_state(generation):
    model = classic(generation=generation, replicas=2)
    states = reachable(model) | {model.canonical(s) for s in reachable(model)}
    packed = {model.pack(s): s for s in states}
    assert len(packed) == len(states)  # no two states pack alike
    assert all(isinstance(k, int) and model.unpack(k) == s for k, s in packed.items())


def test_classic_packing_keeps_a_state_it_cannot_pack_as_it_is():
    model = classic(generation="kip320", replicas=2)
    (init,) = model.init_states()
    odd = (200,) + init[1:]  # a value no signed byte holds
    assert model.pack(odd) is odd and model.unpack(odd) is odd and model.pack(init) != odd
    with_options = classic(generation="kip320", replicas=2, acks="all")
    assert with_options.pack is None  # option fields: the engine keeps tuples


def test_the_memory_ceiling_stops_the_parallel_engine_cleanly():
    model = Counters(3, 12)
    reads = iter(range(10**6))

    def fake_rss() -> int:  # 10 MiB more at every read
        return (50 + 10 * next(reads)) * 2**20

    r = run_parallel(model, select_properties(model), workers=2, inline_below=0, memory_limit=75 * 2**20,
                     rss=fake_rss)
    assert r.limit == "memory" and not r.complete and "passed the ceiling" in r.limit_note
    assert 0 < r.distinct_states < 13**3 and r.violations == []


def test_the_cli_exits_5_at_the_ceiling_with_workers():
    out = subprocess.run([sys.executable, "-m", "isrcheck", "check", "classic", "--generation", "kip320",
                          "--invariant", "StrongIsr", "--workers", "2", "--max-memory", "1M"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 5, out.stderr
    assert "Stopped at the memory limit" in out.stdout


class Suicidal:
    """A model whose successors() kills its own process at state 300 in a worker: a worker dies
    (the coordinator, which audits sampled states itself, is spared)."""

    def __init__(self):
        import os

        self.pid = os.getpid()

    def init_states(self):
        return [0]

    def successors(self, state):
        import os

        if state == 300 and os.getpid() != self.pid:
            import signal

            os.kill(os.getpid(), signal.SIGKILL)
        return [("inc", state + 1), ("jump", state + 2)]

    def properties(self):
        from isrcheck.explorer.contract import Property

        return [Property.always("Small", lambda s: s < 10**6)]


def test_a_worker_that_dies_is_reported_not_waited_for():
    from isrcheck.explorer.search.parallel.engine import WorkerDied

    with pytest.raises(WorkerDied, match="died"):
        run(Suicidal(), 2)


def test_sealed_levels_keep_every_parent_in_five_bytes_a_state():
    from isrcheck.explorer.search.parallel.order import Numbering
    from isrcheck.explorer.search.parallel.worker import INDEX_BITS

    numbering = Numbering()
    numbering.add_level(array("Q", [0, 1, 2]))
    second = array("Q", [(0 << INDEX_BITS) | 3, (2 << INDEX_BITS) | 0, (2 << INDEX_BITS) | 255])
    numbering.add_level(second)
    third = array("Q", [(3 << INDEX_BITS) | 300, (5 << INDEX_BITS) | 1])
    numbering.add_level(third)  # seals the second level
    before = [numbering.parent_of(n) for n in range(len(numbering))]
    numbering.seal()
    assert len(numbering) == 8
    assert [numbering.parent_of(n) for n in range(8)] == before == [
        (None, 0), (None, 1), (None, 2), (0, 3), (2, 0), (2, 255), (3, 300), (5, 1)]
    # initial level: 1-byte indices; second: 4-byte parents, 1-byte indices; third: index 300 needs 2
    assert numbering.nbytes() == 3 * 1 + 3 * 5 + 2 * 6


def test_a_level_sealed_later_reads_the_same():
    """The coordinator seals the previous level while the next one's workers run (``seal(-2)``);
    until then that level is read from its unsealed keys, after it from the split arrays."""
    from isrcheck.explorer.search.parallel.order import Numbering
    from isrcheck.explorer.search.parallel.worker import INDEX_BITS

    numbering = Numbering()
    numbering.add_level(array("Q", [0, 1]), seal=False)
    numbering.add_level(array("Q", [(1 << INDEX_BITS) | 2, (0 << INDEX_BITS) | 7]), seal=False)
    third = array("Q")
    numbering.add_level(third, seal=False)
    third.append((3 << INDEX_BITS) | 1)
    unsealed = [numbering.parent_of(n) for n in range(len(numbering))]
    numbering.seal(-2)
    numbering.seal(-3)
    assert isinstance(numbering.levels[1], tuple) and isinstance(numbering.levels[0], tuple)
    assert isinstance(numbering.levels[2], array)  # the level being built stays appendable
    assert [numbering.parent_of(n) for n in range(len(numbering))] == unsealed == [
        (None, 0), (None, 1), (1, 2), (0, 7), (3, 1)]
    numbering.seal(-5)  # no such level: nothing to do
    numbering.seal()
    assert [numbering.parent_of(n) for n in range(5)] == unsealed


@pytest.mark.parametrize("parent_max", [10, 2**32 - 1, 2**32, 2**39])
@pytest.mark.parametrize("index_max", [3, 255, 256, 65535, 65536, 2**24 - 1])
def test_sealing_splits_keys_into_the_smallest_arrays(parent_max: int, index_max: int):
    """``_split`` gathers the fields from the keys' bytes; it must equal the arithmetic."""
    import random

    from isrcheck.explorer.search.parallel.order import _smallest, _split
    from isrcheck.explorer.search.parallel.worker import INDEX_BITS

    rng = random.Random(parent_max ^ index_max)
    pairs = [(rng.randint(0, parent_max), rng.randint(0, index_max)) for _ in range(300)]
    pairs += [(parent_max, index_max), (0, 0)]
    parents, indices = _split(array("Q", [(p << INDEX_BITS) | i for p, i in pairs]))
    assert list(parents) == [p for p, _ in pairs] and list(indices) == [i for _, i in pairs]
    assert parents.typecode == _smallest("IQ", parent_max) and indices.typecode == _smallest("BHI", index_max)
