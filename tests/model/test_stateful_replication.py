"""Hypothesis random walks over the replication model, at the bounds exhaustive search covers
and far past them.

Exhaustive search (isrcheck.explorer.check) proves what holds at 2/2/2/2 and 3/2/2/2
(Replicas/LogSize/MaxRecords/MaxLeaderEpoch); these tests walk the same model, unchanged, at
five replicas, five leader epochs and eight records, where breadth-first search cannot go. In the
buggy generations Hypothesis must find the known violation and shrink it to a trace that replays
through the explorer; in KIP-320 a generous budget finds nothing (slow-marked).

Budgets are set here (the profile decides determinism and the example database): each is several
times the median number of examples bench/bench_hypothesis.py measured, so a random profile
(dev, nightly) finds the bug too, not only the derandomized ci profile.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, seed, settings
from isrcheck.explorer.stateful import find_violation, machine_for, run_machine
from isrcheck.explorer.traces.replay import evaluate, replay_actions

from isrcheck import check
from tests.fixtures.classic import GENERATIONS, classic

SPEC_BOUNDS = {"2/2/2/2": (2, 2, 2, 2), "3/2/2/2": (3, 2, 2, 2)}
FAR_BOUNDS = {"5/3/8/5": (5, 3, 8, 5), "4/3/6/6": (4, 3, 6, 6)}
ALL_BOUNDS = {**SPEC_BOUNDS, **FAR_BOUNDS}
# Hold in every generation at every bound (exhaustively checked at the spec bounds).
SAFE = ["TypeOk", "LeaderInIsr", "OnlyTruncationShortensLogs"]


def build(generation: str, bounds: tuple[int, int, int, int]):
    r, log, rec, ep = bounds
    return classic(generation=generation, replicas=r, log_size=log, max_records=rec, max_leader_epoch=ep)


def options(generation: str, bounds: tuple[int, int, int, int]) -> dict:
    r, log, rec, ep = bounds
    return {"generation": generation, "replicas": r, "log_size": log, "max_records": rec, "max_leader_epoch": ep}


def budget(n: int, shrink: bool = True) -> settings:
    if shrink:
        return settings(settings.default, max_examples=n, deadline=None)
    # Shrinking these traces costs tens of seconds (see docs/hypothesis.md); the fast tests check
    # finding and replay, the slow ones shrinking.
    return settings(settings.default, max_examples=n, deadline=None, phases=[Phase.generate])


def steps_for(bounds: tuple[int, int, int, int]) -> int:
    """Walks at the spec bounds run dry after about 11 actions (epochs and records used up), so
    longer runs only stutter; bigger bounds get longer runs."""
    return 20 if bounds[1:] == (2, 2, 2) else 30


@pytest.mark.parametrize("bounds", ALL_BOUNDS, ids=list(ALL_BOUNDS))
@pytest.mark.parametrize("generation", GENERATIONS)
def test_type_and_leader_invariants_hold_on_random_walks(generation, bounds):
    b = ALL_BOUNDS[bounds]
    run_machine(build(generation, b), properties=SAFE, max_steps=steps_for(b),
                settings=budget(20 if b in SPEC_BOUNDS.values() else 8))


@pytest.mark.parametrize("bounds", ALL_BOUNDS, ids=list(ALL_BOUNDS))
def test_kip320_keeps_committed_records_on_random_walks(bounds):
    b = ALL_BOUNDS[bounds]
    run_machine(build("kip320", b), properties=["WeakIsr", "StrongIsr", "LogMatching"], max_steps=steps_for(b),
                settings=budget(30))


def assert_found_shrunk_and_replays(generation, bounds, prop, examples, shrink=True, retries=0):
    """Hypothesis finds the violation within ``examples`` runs (the profile's own seed first, then up
    to ``retries`` fixed seeds: for the rarest bugs one seed's budget can miss, and whether it does
    varied between otherwise identical CI runs), shrinks it and the result replays."""
    model = build(generation, bounds)
    machine = machine_for(model, properties=[prop], max_steps=steps_for(bounds), spec="classic",
                          options=options(generation, bounds))
    found = find_violation(machine, settings=budget(examples, shrink))
    for attempt in range(retries):
        if found is not None:
            break
        seeded = settings(budget(examples, shrink), derandomize=False, database=None)
        found = find_violation(seed(attempt)(machine), settings=seeded)
    assert found is not None, f"{examples} examples did not find the {prop} violation of {generation}"
    assert found.violation.property == prop
    # the shrunk trace replays through the explorer and violates the property at its last state
    trace = replay_actions(model, found.actions, found.init_index)
    assert trace == found.violation.trace
    replayed = evaluate(model, trace, [prop])
    assert replayed.violated == [(prop, len(trace), found.violation.detail)]
    # the failure message is the explorer's trace plus a runnable regression
    text = str(found)
    assert f"{prop} (invariant) violated in a trace of {len(trace)} states" in text
    assert "MODEL = 'classic'" in text and f"'generation': '{generation}'" in text
    return found


def test_truncate_to_hw_loses_a_committed_record_weak_isr():
    bounds = SPEC_BOUNDS["2/2/2/2"]
    found = assert_found_shrunk_and_replays("truncate-to-hw", bounds, "WeakIsr", 3000, shrink=False)
    shortest = check(build("truncate-to-hw", bounds), properties=["WeakIsr"]).violations[0].trace
    assert len(shortest) <= len(found.violation.trace)


def test_kip101_truncation_loses_committed_record_past_the_spec_bounds():
    assert_found_shrunk_and_replays("kip101", (3, 3, 4, 4), "StrongIsr", 2000, shrink=False)


@pytest.mark.slow
def test_truncate_to_hw_weak_isr_violation_is_shrunk():
    bounds = SPEC_BOUNDS["2/2/2/2"]
    found = assert_found_shrunk_and_replays("truncate-to-hw", bounds, "WeakIsr", 3000)
    shortest = check(build("truncate-to-hw", bounds), properties=["WeakIsr"]).violations[0].trace
    assert len(shortest) <= len(found.violation.trace)


# kip320-first-try's failure is found, not shrunk: finding it took 16-39 s and shrinking 34-235 s
# more, depending on the interpreter's hash seed even under the derandomized ci profile
# (PYTHONHASHSEED 1, 2, 3 on 2026-11-23: found after 2726, 705, 1239 examples; the whole test
# 72 s with seed 1 and 252 s with seed 2). kip279's shrinks in 16-27 s and covers shrinking here.
@pytest.mark.slow
@pytest.mark.parametrize("generation,shrink", [("kip279", True), ("kip320-first-try", False)])
def test_three_replica_generations_lose_committed_records(generation, shrink):
    assert_found_shrunk_and_replays(generation, (3, 3, 4, 4), "StrongIsr", 8000, shrink=shrink, retries=2)


@pytest.mark.slow
@pytest.mark.parametrize("bounds", ["3/2/2/2", "5/3/8/5"])
def test_kip320_generous_budget_finds_nothing(bounds):
    # 1,000 walks: ten times what finds KIP-101's bug at 3/3/4/4 and more than kip279's median
    # at 3/2/2/2 (bench/bench_hypothesis.py); the nightly profile raises it to its max_examples.
    b = ALL_BOUNDS[bounds]
    model = build("kip320", b)
    n = max(1000, settings.default.max_examples)
    assert find_violation(model, properties=["WeakIsr", "StrongIsr", "LogMatching"], max_steps=steps_for(b),
                          settings=budget(n)) is None


def test_machine_for_the_replication_model_names_the_generation_in_its_class():
    machine = machine_for(build("kip320", SPEC_BOUNDS["2/2/2/2"]), name="Kip320Machine")
    assert machine.__name__ == "Kip320Machine"
