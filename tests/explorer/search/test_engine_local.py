"""The local engine on fixture models whose counts are derived by hand (see tests/fixtures)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from isrcheck.explorer.errors import ContractError

from isrcheck import Property, UserError, check
from tests.fixtures.models import Bits, Chain, Counters, TwoStarts
from tests.fixtures.paths import ROOT


@pytest.mark.parametrize("n,limit", [(1, 5), (2, 3), (3, 4), (4, 2)])
def test_counters_counts_match_hand_formula(n, limit):
    r = check(Counters(n, limit))
    assert r.complete and r.ok
    assert r.distinct_states == limit**n
    assert r.depth == n * (limit - 1) + 1
    assert r.generated_states == 1 + n * (limit - 1) * limit ** (n - 1)


def test_jug_puzzle_shortest_solution_is_six_pours():
    sys.path.insert(0, str(ROOT / "docs" / "examples"))
    try:
        import jugs
    finally:
        sys.path.pop(0)
    r = check(jugs.make_model())
    (v,) = r.violations
    assert v.property == "BigJugNeverHolds4"
    assert len(v.trace) == 7 and v.trace.last == (3, 4)
    # The full puzzle: 16 states have a jug empty or full, all reachable; 1 + 16*6 generated.
    full = check(jugs.make_model(), properties=["BothJugsFull"])
    assert (full.distinct_states, full.generated_states, full.depth) == (16, 97, 8)


def test_counterexample_is_shortest_and_starts_at_an_initial_state():
    r = check(Counters(3, 4, bug_at=5))
    (v,) = r.violations
    assert len(v.trace) == 6
    assert sum(v.trace.last) == 5 and v.trace.steps[0].state == (0, 0, 0)
    assert v.detail == "sum of counters is 5"
    assert not r.complete and r.stats["stopped_at_violation"]


def test_trace_starts_at_the_initial_state_it_came_from():
    (v,) = check(TwoStarts()).violations
    assert v.trace.states == [10, 11, 12]
    assert [repr(a) for a in v.trace.actions] == ["'inc'", "'inc'"]


def test_continue_reports_one_shortest_violation_per_property():
    model = Counters(2, 4, bug_at=2)
    model_props = model.properties
    model.properties = lambda: [*model_props(), Property.always("SumBelow5", lambda s: sum(s) < 5)]
    r = check(model, stop_at_first=False)
    assert r.complete  # --continue explores everything reachable
    assert {v.property: len(v.trace) for v in r.violations} == {"SumBelowBug": 3, "SumBelow5": 6}
    assert r.distinct_states == 16


def test_transition_property_violation_ends_with_the_offending_step():
    r = check(Bits(3), properties=["NeverClearBit0"])
    (v,) = r.violations
    assert v.kind == "transition" and len(v.trace) == 3
    assert v.trace.states == [frozenset(), frozenset({0}), frozenset()]


def test_sometimes_never_reached_is_reported_vacuous_not_ok():
    r = check(Bits(3), properties=["AllSet", "MoreThanAllSet"])
    assert r.complete and not r.violations
    assert r.vacuous == ["MoreThanAllSet"] and not r.ok
    assert len(r.examples["AllSet"]) == 4


def test_symmetry_reduces_to_classes_with_the_same_verdict():
    assert check(Bits(4), properties=["AllSet"], symmetry=True).distinct_states == 5
    plain, sym = check(Counters(3, 3)), check(Counters(3, 3), symmetry=True)
    assert (plain.distinct_states, sym.distinct_states) == (27, 10)  # multisets of size 3 over 3 values
    assert plain.depth == sym.depth
    bug = check(Counters(3, 3, bug_at=4), symmetry=True)
    assert len(bug.violations[0].trace) == 5


def test_symmetry_without_canonical_is_a_clear_error():
    with pytest.raises(UserError, match="canonical"):
        check(Chain(), symmetry=True)


def test_fingerprint_store_gives_exact_counts_and_a_collision_estimate():
    exact, fp = check(Counters(3, 5)), check(Counters(3, 5), store="fingerprint")
    assert (fp.distinct_states, fp.generated_states, fp.depth) == (exact.distinct_states, exact.generated_states,
                                                                    exact.depth)
    assert exact.collision_probability is None
    assert 0 < fp.collision_probability < 1e-12
    bug_exact, bug_fp = check(Counters(3, 5, bug_at=6)), check(Counters(3, 5, bug_at=6), store="fingerprint")
    assert bug_fp.violations[0].trace == bug_exact.violations[0].trace


@pytest.mark.parametrize("generation", ["truncate-to-hw", "kip320"])
def test_fingerprints_through_pack_tell_every_reachable_state_apart(generation):
    """The one-process fingerprint store keys a model with ``pack`` by ``packed_fingerprint``: one
    fingerprint per reachable state, the same for a state and its unpacked copy, the tuple
    fallback for a state ``pack`` cannot fit; and the search gives the exact store's results."""
    from isrcheck.explorer.search.fingerprint import fingerprint, packed_fingerprint
    from isrcheck.explorer.search.local import make_key

    from tests.fixtures.classic import classic
    from tests.fixtures.states import reachable

    model = classic(generation=generation, replicas=2)
    fp = packed_fingerprint(model.pack)
    states = reachable(model)
    assert len({fp(s) for s in states}) == len(states)
    assert all(fp(model.unpack(model.pack(s))) == fp(s) for s in list(states)[:200])
    assert {fp(s) for s in states}.isdisjoint({fingerprint(s) for s in states})  # its own numbers
    odd = (1000,) + next(iter(states))[1:]  # out of the packed ranges: pack keeps the tuple
    assert not isinstance(model.pack(odd), int) and fp(odd) == fingerprint(model.pack(odd))
    key = make_key(model, symmetry=False, store="fingerprint", packed=True)
    assert key(odd) == fp(odd)
    exact, fps = check(model, workers=1, stop_at_first=False), check(model, workers=1, store="fingerprint",
                                                                      stop_at_first=False)
    assert (fps.distinct_states, fps.generated_states, fps.depth) == (exact.distinct_states,
                                                                      exact.generated_states, exact.depth)
    assert [(v.property, v.trace) for v in fps.violations] == [(v.property, v.trace) for v in exact.violations]


def test_max_depth_cuts_the_run_and_says_so():
    r = check(Counters(2, 5), max_depth=3)
    assert r.depth == 3 and not r.complete and r.distinct_states == 6  # sums 0, 1, 2
    assert r.vacuous == []  # an incomplete run cannot call a sometimes vacuous


def test_deadlock_reported_only_when_asked():
    assert check(Chain(4)).ok
    r = check(Chain(4), check_deadlock=True)
    (v,) = r.violations
    assert v.kind == "deadlock" and v.trace.states == [0, 1, 2, 3]


def test_within_bounds_keeps_but_does_not_expand():
    model = Counters(2, 5)
    model.within_bounds = lambda s: sum(s) < 2
    r = check(model)
    # sums 0 and 1 are expanded; sum 2 states (3 of them) are stored but not expanded
    assert r.distinct_states == 6 and r.depth == 3 and r.complete


def test_unknown_property_and_bad_options_are_refused_up_front():
    with pytest.raises(UserError, match="unknown property 'Nope'.*AllAtLimit"):
        check(Counters(), properties=["Nope"])
    with pytest.raises(UserError, match="max_depth"):
        check(Counters(), max_depth=0)
    with pytest.raises(UserError, match="unknown engine"):
        check(Counters(), engine="gpu")
    with pytest.raises(UserError, match="not a model"):
        check(object())


class _ListState(Counters):
    def init_states(self):
        return [[0, 0]]  # a list: mutable and unhashable


class _Floats(Counters):
    def init_states(self):
        return [(0.5,)]


def test_contract_breaches_are_named():
    with pytest.raises(ContractError, match="contains a list"):
        check(_ListState())
    with pytest.raises(ContractError, match="float"):
        check(_Floats())


def test_nondeterministic_successors_are_caught_when_the_trace_is_rebuilt():
    import random

    class Flaky(Counters):
        def successors(self, state):
            succ = list(super().successors(state))
            random.shuffle(succ)
            # a different *set* of successors on each call: trace rebuild cannot follow it
            return succ[: random.randint(0, len(succ))]

    random.seed(3)
    with pytest.raises(ContractError, match="deterministic"):
        for _ in range(20):
            check(Flaky(3, 4, bug_at=6))


_SEED_MODEL = '''
from isrcheck import Property
class Names:
    def init_states(self):
        return [frozenset()]
    def successors(self, state):
        for name in ("kafka", "zookeeper", "kraft", "broker"):
            yield ("add", name), state | {name}
            yield ("swap", name), frozenset(n + "!" if n == name else n for n in state)
    def properties(self):
        return [Property.always("Small", lambda s: len(s) < 4)]
def make_model():
    return Names()
'''


def test_counts_and_trace_are_the_same_under_any_hash_seed(tmp_path):
    model_file = tmp_path / "names.py"
    model_file.write_text(_SEED_MODEL)
    outputs = set()
    for seed in ("0", "1", "12345"):
        for store in ("exact", "fingerprint"):
            proc = subprocess.run(
                [sys.executable, "-m", "isrcheck", "check", str(model_file), "--json", "--quiet", "--store", store],
                capture_output=True, text=True, cwd=ROOT, env={"PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT),
                                                               "PATH": "/usr/bin:/bin"},
            )
            assert proc.returncode == 1, proc.stderr
            out = json.loads(proc.stdout)
            trace = json.dumps(out["violations"][0]["trace"]["states"], sort_keys=True)
            outputs.add((out["distinct_states"], out["generated_states"], out["depth"], trace))
    assert len(outputs) == 1


def test_properties_not_marked_default_run_only_when_named():
    model = Counters(2, 3)
    base = model.properties
    model.properties = lambda: [*base(), Property.always("Literal", lambda s: False, default=False)]
    assert check(model).ok
    (v,) = check(model, properties=["Literal"]).violations
    assert v.property == "Literal" and len(v.trace) == 1
