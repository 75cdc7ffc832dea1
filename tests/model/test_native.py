"""The compiled hot path is the same function as the Python one.

The C successor function (generated from the step descriptions, ``model/native/cwriter.py``, and
compiled at run time, ``model/native/compiled.py``) and pack/unpack (``model/native/_classic.c``)
must give exactly what ``isrcheck.model.steps.next`` and ``isrcheck.model.encoding.packed`` give: the
same successors in the same order (the same action objects, equal next states) on every reachable
state of every classic generation at 2/2/2/2, and on a sample of 3-replica states. Both are
optional (no compiler: the Python code runs, slower), so ``test_extension_was_built`` and
``test_kernel_compiles`` are what make a broken build visible: they fail in any environment where
nothing was compiled. Without a compiler the model falls back, saying why. Bad input must raise,
never crash.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from isrcheck.model.encoding.packed import packing
from isrcheck.model.factory import make_model
from isrcheck.model.native import compiled, extension
from isrcheck.model.native.kernel import native_successors, qualifies
from isrcheck.model.native.packing import native_packing
from isrcheck.model.steps.next import next_successors

from tests.fixtures.classic import GENERATIONS, classic
from tests.fixtures.paths import ROOT

REBUILD = "the C extension model/native/_classic.c was not built here: rebuild it with `pip install -e .` " \
          "(needs gcc and the Python headers; the build log says why it failed)"


def test_extension_was_built() -> None:
    """Fails where the optional build did not happen, so CI cannot go silently slow."""
    assert extension() is not None, REBUILD


def test_kernel_compiles() -> None:
    """Fails where no C compiler is found, so CI cannot go silently slow."""
    assert compiled.compiler() is not None, "no C compiler found (set CC, or install gcc)"
    assert native_successors(classic().tables) is not None, compiled.unavailable()


def test_without_a_compiler_the_generated_python_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nonexistent/cc")
    model = make_model(generation="kip279")
    assert type(model.successors).__name__ == "function"
    assert "no C compiler" in compiled.unavailable()
    assert model.successors(model.init_states()[0]) == next_successors(model.tables)(model.init_states()[0])


def test_a_failing_compiler_falls_back_saying_why(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("CC", "false")  # runs, fails: as a broken toolchain would
    monkeypatch.setenv("ISRCHECK_KERNEL_CACHE", str(tmp_path))
    model = make_model(generation="kip320")  # the compiler command is part of the cache key: a new module
    assert type(model.successors).__name__ == "function"
    assert "the C compiler failed" in compiled.unavailable() and not list(tmp_path.iterdir())


def test_one_source_serves_every_bound_and_replica_count() -> None:
    """The bounds and the replica count are the kernel's fields, not constants of the source, and
    the three eager generations differ only in tables: one compiled module for all of these."""
    a = classic(generation="kip101")
    b = make_model(generation="kip101", max_leader_epoch=3, max_records=3)
    c = classic(generation="kip279", replicas=3)
    d = classic(generation="kip320")
    assert type(a.successors) is type(b.successors) is type(c.successors) is not type(d.successors)


def _native(model):
    fn = native_successors(model.tables)
    assert fn is not None, "this configuration should qualify for the C successor function"
    return fn


def _same(python, native, state) -> None:
    want, got = python(state), native(state)
    assert len(got) == len(want), state
    for (wa, ws), (ga, gs) in zip(want, got, strict=True):
        assert ga is wa, (state, wa, ga)
        assert gs == ws and type(gs) is tuple, (state, ws, gs)


def _compare(model, limit: int | None = None) -> int:
    """BFS with the Python function; the C one must agree on every state seen; pack/unpack too."""
    python, native = next_successors(model.tables), _native(model)
    py_pack, py_unpack = packing(model.tables)
    c_pack, c_unpack = native_packing(model.tables, py_pack, py_unpack)
    assert c_pack is not py_pack
    init = model.init_states()
    seen, frontier = set(init), list(init)
    while frontier and (limit is None or len(seen) < limit):
        nxt = []
        for state in frontier:
            _same(python, native, state)
            key = c_pack(state)
            assert key == py_pack(state) and c_unpack(key) == state == py_unpack(key)
            for _, succ in python(state):
                if succ not in seen:
                    seen.add(succ)
                    nxt.append(succ)
        frontier = nxt
    return len(seen)


@pytest.mark.parametrize("generation", GENERATIONS)
def test_every_reachable_state_2222(generation: str) -> None:
    assert _compare(classic(generation=generation)) > 1000


@pytest.mark.parametrize("options", [
    {"truncation": "on-fetch"}, {"truncation": "on-fetch-hw-first"},  # FollowerTruncate, K13's HW update
    {"generation": "kip320-first-try", "expand_before_epoch_start": True},  # bug K6
], ids=str)
def test_options_without_fields_2222(options: dict) -> None:
    """Options that change the generation's steps but add no state field run on the C function too."""
    assert _compare(classic(**options)) > 1000


@pytest.mark.parametrize("generation", ("kip320", "kip279"))
def test_sample_of_3_replica_states(generation: str) -> None:
    assert _compare(classic(generation=generation, replicas=3), limit=10_000) >= 10_000


def test_model_uses_the_kernel_only_without_options() -> None:
    assert extension() is not None, REBUILD
    plain = make_model()
    assert type(plain.successors).__module__.startswith("_isrcheck_kernel_"), compiled.unavailable()
    stops = make_model(max_crashes=1)
    assert not qualifies(stops.tables) and native_successors(stops.tables) is None
    assert type(stops.successors).__name__ == "function" and stops.pack is None


def test_pure_python_switch() -> None:
    """``ISRCHECK_PURE_PYTHON=1`` keeps the Python functions (checked in a child: the switch is read
    when a model is built)."""
    code = ("from isrcheck.model.factory import make_model; m = make_model(); "
            "print(type(m.successors).__name__, type(m.pack).__name__)")
    env = {**os.environ, "ISRCHECK_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.split() == ["function", "function"]


def test_pack_falls_back_like_python() -> None:
    model = classic()
    py_pack, py_unpack = packing(model.tables)
    c_pack, c_unpack = native_packing(model.tables, py_pack, py_unpack)
    state = model.init_states()[0]
    out_of_range = (300,) + state[1:]
    assert c_pack(out_of_range) is out_of_range and py_pack(out_of_range) is out_of_range
    bad_request = state[:-1] + ((256,),)
    assert c_pack(bad_request) is bad_request
    assert c_unpack(bad_request) is bad_request and c_unpack("x") == "x"
    for weird in (0, -5, 1):
        with pytest.raises(Exception) as c_err:
            c_unpack(weird)
        with pytest.raises(Exception) as py_err:
            py_unpack(weird)
        assert type(c_err.value) is type(py_err.value)


def test_bad_states_raise_clear_errors() -> None:
    """A state that is not a tuple of ints of the layout's length raises TypeError or ValueError."""
    model = classic(generation="kip279")
    native = _native(model)
    state = model.init_states()[0]
    for value, error in [
        ([1, 2], TypeError),  # not a tuple
        (state[:-1], ValueError),  # wrong length
        (("x",) + state[1:], TypeError),  # not an int
        (state[:-1] + ([],), TypeError),  # requests not a tuple
        (state[:-1] + (("a",),), TypeError),  # a request that is not an int
    ]:
        with pytest.raises(error, match="native successors|int|tuple"):
            native(value)
    with pytest.raises(TypeError):
        native()
    assert native(state) == next_successors(model.tables)(state)  # still alive, still right


OUT_OF_RANGE = [
    lambda s: (-1,) + s[1:],  # negative log code
    lambda s: (10**6,) + s[1:],  # a log code outside the tables
    lambda s: (10**30,) + s[1:],  # does not fit a C long
    lambda s: s[:3] + (7,) + s[4:],  # leader out of range
    lambda s: s[:1] + (-3,) + s[2:],  # negative high watermark
    lambda s: s[:2] + (3,) + s[3:],  # epoch beyond MaxLeaderEpoch (a counterexample to induction can have it)
    lambda s: s[:-1] + ((0,) * 10,),  # more requests than MaxLeaderEpoch + 1
    lambda s: s[:-1] + ((255, 255),),  # a request naming a replica that does not exist
]


@pytest.mark.parametrize("case", range(len(OUT_OF_RANGE)))
def test_out_of_range_states_are_checked(case: int) -> None:
    """Values outside the C code's ranges never reach an array: without a fallback the kernel raises
    ValueError; as wired into the model it hands the state to next.py, so the answer (a list or an
    exception) is exactly Python's."""
    model = classic(generation="kip279")
    strict = native_successors(model.tables, fallback=False)
    state = OUT_OF_RANGE[case](model.init_states()[0])
    with pytest.raises(ValueError, match="native successors"):
        strict(state)
    python = next_successors(model.tables)
    try:
        want = python(state)
    except Exception as exc:  # Python's own error on this state: the wired kernel must raise the same
        with pytest.raises(type(exc)):
            _native(model)(state)
    else:
        assert _native(model)(state) == want


def test_an_unreachable_state_gets_pythons_answer() -> None:
    """What a z3 counterexample to induction gave (tests/explorer/symbolic/test_symbolic_prove.py): a leader epoch
    above MaxLeaderEpoch. next.py answers it, so the model must too."""
    model = classic(generation="kip320")
    state = model.init_states()[0]
    odd = state[:2] + (3,) + state[3:]
    want = next_successors(model.tables)(odd)
    assert want and model.successors(odd) == want


def test_a_damaged_cached_kernel_falls_back_saying_why(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A cache file that is not a loadable module (a disk error, a half-copied cache) is reported,
    and the model runs on Python."""
    monkeypatch.setenv("ISRCHECK_KERNEL_CACHE", str(tmp_path))
    monkeypatch.setattr(compiled, "_loaded", {})
    monkeypatch.setattr(compiled, "_compile", lambda command, source, path: path.write_bytes(b"not a module") or True)
    model = make_model(generation="kip320")
    assert type(model.successors).__name__ == "function"
    assert "could not be loaded" in compiled.unavailable() and "delete it to rebuild" in compiled.unavailable()
