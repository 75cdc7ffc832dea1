"""The classic model's successor function and state properties are the same function as before
the performance work of issue 15: same successors, in the same order, same verdicts.

``tests/fixtures/successor_digests.json`` was produced by ``python tests/model/successor_digest.py`` on
commit 2c0a04d, before the successor function was fused (``model/steps/next.py``) and the ISR
properties rewritten as plain loops, i.e. by the old per-step closures. Each digest covers every
reachable state of one configuration (every classic generation at 2/2/2/2, one at 3 replicas, and
options that change how the steps are built): the state, every property's verdict on it, and its
successors as (action repr, next state) in order. Traces, TLC parity counts and shortest
counterexamples all depend on that order, so any difference fails here, naming the configuration.
Each case runs twice: with the C successor function and packing of ``isrcheck.model.native`` (what a run
uses where a compiler is found; configurations with options use Python either way) and with
``ISRCHECK_PURE_PYTHON=1`` (the generated Python function). Both are generated from the step
descriptions (``isrcheck.model.steps.described``) today; the digests were recorded from the
hand-written functions they replaced.
"""

from __future__ import annotations

import json

import pytest
from isrcheck.model.factory import make_model
from isrcheck.model.native.compiled import unavailable
from isrcheck.model.native.kernel import qualifies

from tests.fixtures.paths import FIXTURES
from tests.model.successor_digest import CASES, digest

GOLDEN = json.loads((FIXTURES / "successor_digests.json").read_text())


def test_golden_file_covers_every_case() -> None:
    assert sorted(GOLDEN) == sorted(name for name, _ in CASES)
    assert SLOW <= set(GOLDEN)


# The three largest state spaces (about 30,000-40,000 states each) run with the slow tests (CI),
# keeping the fast loop's share of this file to about 3 CPU-seconds.
SLOW = {"kip320 3/2/2/1", "kip101 crash stops, unclean highest-last-epoch",
        "kip279 2 zones rack-aware, zone failure, reads leader, max records 1"}


@pytest.mark.parametrize("kernel", ["native", "python"])
@pytest.mark.parametrize(("name", "options"), [
    pytest.param(name, options, id=name, marks=[pytest.mark.slow] if name in SLOW else [])
    for name, options in CASES
])
def test_successors_and_verdicts_unchanged(name: str, options: dict, kernel: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISRCHECK_PURE_PYTHON", "1" if kernel == "python" else "0")
    model = make_model(**options)
    if kernel == "native" and qualifies(model.tables):
        # Configurations without option fields must really be on the C function here.
        assert type(model.successors).__module__.startswith("_isrcheck_kernel_"), \
            f"the generated C successor function was not compiled: {unavailable()}"
    assert digest(model) == GOLDEN[name]


def test_a_next_out_of_the_fused_order_is_refused() -> None:
    """The fused function runs its sections in one order (``NEXT_ORDER``); a generation whose
    ``Next`` lists steps in another order would get its successors reordered, so it is refused."""
    from dataclasses import replace

    from isrcheck.model.steps.next import next_successors

    tables = make_model(generation="kip320").tables
    tables.generation = replace(tables.generation, next=tuple(reversed(tables.generation.next)))
    with pytest.raises(ValueError, match="not in the order of NEXT_ORDER"):
        next_successors(tables)
