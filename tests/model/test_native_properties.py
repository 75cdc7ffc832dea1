"""WeakIsr and StrongIsr compiled (``model/native/_isr.c``) answer exactly as properties/isr.py does.

Compared on every reachable state of the five classic generations at 2/2/2/2 (where truncate-to-hw
and kip101 violate both, so both answers occur), on states sampled at 3 replicas, and on states the
C code does not expect (a bool where an int belongs, a log code outside the tables), which it must
hand to the Python predicate. The compiled predicate also pickles, as the Spark engine ships
properties to its executors.
"""

from __future__ import annotations

import pytest
from isrcheck.model.factory import make_model
from isrcheck.model.native.properties import _extension
from pyspark import cloudpickle

from tests.fixtures.classic import GENERATIONS
from tests.fixtures.states import reachable

NAMES = ("WeakIsr", "StrongIsr")


def _predicates(monkeypatch, **config) -> tuple[list, list, object]:
    """(Python predicates, compiled predicates, model) of WeakIsr and StrongIsr."""
    assert _extension() is not None, "model/native/_isr.c was not built: rebuild it with `pip install -e .`"
    monkeypatch.setenv("ISRCHECK_PURE_PYTHON", "1")
    python = {p.name: p.predicate for p in make_model(**config).properties() if p.name in NAMES}
    monkeypatch.delenv("ISRCHECK_PURE_PYTHON")
    model = make_model(**config)
    native = {p.name: p.predicate for p in model.properties() if p.name in NAMES}
    assert all(type(native[n]).__name__ == "IsrAgreement" for n in NAMES), native
    assert all(type(python[n]).__name__ == "function" for n in NAMES), python
    return [python[n] for n in NAMES], [native[n] for n in NAMES], model


def _agree(python: list, native: list, states: list[tuple]) -> set[bool]:
    answers = set()
    for state in states:
        for py, c in zip(python, native, strict=True):
            want = py(state)
            assert c(state) is want, state
            answers.add(want)
    return answers


@pytest.mark.parametrize("generation", GENERATIONS)
def test_every_reachable_state_2222(monkeypatch, generation: str) -> None:
    python, native, model = _predicates(monkeypatch, generation=generation)
    answers = _agree(python, native, reachable(model))
    if generation in ("truncate-to-hw", "kip101"):
        assert answers == {True, False}  # both generations lose committed records at 2/2/2/2


@pytest.mark.parametrize("generation", ["kip279", "kip320"])
def test_sampled_three_replica_states(monkeypatch, generation: str) -> None:
    python, native, model = _predicates(monkeypatch, generation=generation, replicas=3)
    assert _agree(python, native, reachable(model, limit=20_000)) == {True}


def test_states_it_does_not_expect_go_to_python(monkeypatch) -> None:
    python, native, model = _predicates(monkeypatch, generation="truncate-to-hw")
    lay = model.tables.layout
    states = [s for s in reachable(model) if any(s[b + lay.LEADER] == r and s[b + lay.HW] for r, b in lay.blocks)]
    assert states
    odd = []
    for s in states[:200]:
        b = lay.base[0]
        odd.append(s[:b + lay.LEADER] + (bool(s[b + lay.LEADER]) if s[b + lay.LEADER] in (0, 1) else s[b + lay.LEADER],)
                   + s[b + lay.LEADER + 1:])  # True == 1, but not a plain int
    _agree(python, native, odd)
    broken = list(states[0])
    broken[lay.base[1]] = model.tables.logs.size + 5  # a log code outside the tables
    for py, c in zip(python, native, strict=True):
        try:
            want = py(tuple(broken))
        except Exception as exc:  # whatever the Python predicate does, the compiled one does too
            with pytest.raises(type(exc)):
                c(tuple(broken))
        else:
            assert c(tuple(broken)) is want
    with pytest.raises(TypeError):
        native[0]()


def test_it_pickles_for_spark_executors(monkeypatch) -> None:
    python, native, model = _predicates(monkeypatch, generation="kip101")
    states = reachable(model)
    for c in native:
        again = cloudpickle.loads(cloudpickle.dumps(c))
        assert type(again) is type(c)
        assert [again(s) for s in states] == [c(s) for s in states]
