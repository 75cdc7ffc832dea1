"""Contract holes the checker catches instead of silently absorbing: no initial state, nothing to
check, successors that differ between calls, True and 1 counted apart, action reprs that cannot
identify a step, and a model path that only resolves from the directory the run was started in."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.result import Step, Trace
from isrcheck.explorer.search.audit import audit_trace_steps

from isrcheck import ContractError, Property, check
from tests.fixtures.models import Counters
from tests.fixtures.paths import ROOT

RACY = ROOT / "tests" / "fixtures" / "racy_lock.py"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class _NoInit(Counters):
    def init_states(self):
        return []


class _NoProperties(Counters):
    def properties(self):
        return []


class _OnlyOptIn(Counters):
    def properties(self):
        return [Property.always("Costly", lambda s: True, default=False)]


class _HiddenCounter(Counters):
    """Successors depend on how often the model was asked: state kept between calls."""

    calls = 0

    def successors(self, state):
        self.calls += 1
        succ = list(super().successors(state))
        return succ if self.calls % 2 else succ[::-1]


class _NewInitEachCall(Counters):
    calls = 0

    def init_states(self):
        self.calls += 1
        return [(self.calls % 2,) * self.n]


def test_an_empty_init_states_is_refused():
    with pytest.raises(ContractError, match="init_states\\(\\) returned no states"):
        check(_NoInit())


def test_a_run_that_checks_nothing_is_not_a_pass():
    with pytest.raises(ContractError, match="declares no properties"):
        check(_NoProperties())
    with pytest.raises(ContractError, match="all are opt-in: Costly"):
        check(_OnlyOptIn())
    assert check(_NoProperties(2, 3), check_deadlock=True).violations  # --deadlock alone is a check
    assert check(_OnlyOptIn(2, 3), properties=["Costly"]).ok


def test_successors_that_differ_between_calls_are_caught():
    with pytest.raises(ContractError, match="different results in two calls on the same state"):
        check(_HiddenCounter(2, 3))
    with pytest.raises(ContractError, match="init_states\\(\\) returned different states"):
        check(_NewInitEachCall(2, 3))


class _BoolsAndInts:
    """From 0, one step each to True, 1 (equal to True) and 2: three distinct values, as Python's
    == and hash see them, so every store must count 3 states; then True and 1 step to 3."""

    def init_states(self):
        return [(0,)]

    def successors(self, state):
        if state == (0,):
            yield "to True", (True,)
            yield "to 1", (1,)
            yield "to 2", (2,)
        elif state == (1,):
            yield "to 3", (3,)

    def properties(self):
        return [Property.always("Small", lambda s: s[0] < 5)]


def test_true_and_1_are_one_state_in_every_store_and_engine():
    exact, fingerprint = check(_BoolsAndInts()), check(_BoolsAndInts(), store="fingerprint")
    assert exact.distinct_states == fingerprint.distinct_states == 4
    # The parallel engine keys states with its own compact encoding (isrcheck.explorer.search.store_compact).
    for store in ("exact", "fingerprint"):
        assert check(_BoolsAndInts(), store=store, workers=2).distinct_states == 4
    from isrcheck.explorer.search.fingerprint import encode
    from isrcheck.explorer.search.fingerprint import fingerprint as fp64
    from isrcheck.explorer.search.spark.level import fp128  # the spark engine's fingerprint

    for a, b in [((True,), (1,)), ((False, (True,)), (0, (1,))), (frozenset({True, "a"}), frozenset({1, "a"})),
                 ((frozenset({1}), True), (frozenset({True}), 1))]:
        assert a == b and encode(a) == encode(b) and fp64(a) == fp64(b) and fp128(a) == fp128(b)
    assert encode(("True",)) != encode((1,))  # a string stays a string


@dataclass(frozen=True)
class Move:
    to: int


class _SameRepr:
    """Two successors of (0,) print as Move(to=1) but lead to different states."""

    def init_states(self):
        return [(0,)]

    def successors(self, state):
        if state == (0,):
            yield Move(1), (1,)
            yield Move(1), (2,)

    def properties(self):
        return [Property.always("NotTwo", lambda s: s != (2,))]


class Opaque:
    """An action class with Python's default repr."""


class _DefaultRepr(_SameRepr):
    def successors(self, state):
        if state == (0,):
            yield Opaque(), (1,)


def test_actions_that_cannot_identify_a_step_are_refused_with_the_fix():
    with pytest.raises(ContractError, match="same action Move\\(to=1\\) but lead to different states.*field"):
        check(_SameRepr())
    with pytest.raises(ContractError, match="Python's default .*@dataclass\\(frozen=True\\)"):
        check(_DefaultRepr())
    # A trace about to be written is checked step by step, beyond the engine's sample.
    trace = Trace((Step(None, (0,)), Step(Move(1), (2,))))
    with pytest.raises(ContractError, match="cannot be written so that it replays"):
        audit_trace_steps(_SameRepr(), trace)


def test_the_cli_reports_contract_breaches_with_exit_4(capsys, tmp_path):
    model = tmp_path / "empty.py"
    model.write_text("from isrcheck import Property\n"
                     "class M:\n"
                     "    def init_states(self): return []\n"
                     "    def successors(self, s): return []\n"
                     "    def properties(self): return [Property.always('T', lambda s: True)]\n"
                     "def make_model(): return M()\n")
    code, _, err = run(capsys, "check", str(model), "--quiet")
    assert code == 4 and "the model broke the contract" in err and "returned no states" in err


@pytest.mark.parametrize("seed", [1])
def test_a_nondeterministic_order_is_caught_whatever_the_seed(seed):
    import random

    class Shuffled(Counters):
        def successors(self, state):
            succ = list(super().successors(state))
            random.shuffle(succ)
            return succ

    random.seed(seed)
    with pytest.raises(ContractError, match="deterministic"):
        check(Shuffled(3, 4))


def test_trace_and_regression_work_from_any_directory(tmp_path):
    """Written from one directory with a relative model path; replayed and run from another."""
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    (work / "models").mkdir(parents=True)
    (work / "out").mkdir()
    elsewhere.mkdir()
    (work / "models" / "racy.py").write_text(RACY.read_text())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cli = [sys.executable, "-m", "isrcheck"]
    made = subprocess.run([*cli, "check", "models/racy.py", "--trace-json", "out/cex.itf.json", "--regression",
                           "out/test_cex.py", "--quiet"], cwd=work, env=env, capture_output=True, text=True)
    assert made.returncode == 1, made.stderr
    assert json.loads((work / "out" / "cex.itf.json").read_text())["#meta"]["model"] == "../models/racy.py"
    replay = subprocess.run([*cli, "replay", str(work / "out" / "cex.itf.json"), "--model",
                             str(work / "models" / "racy.py")], cwd=elsewhere, env=env,
                            capture_output=True, text=True)
    assert replay.returncode == 1 and "MutualExclusion fails at state 5" in replay.stdout, replay.stderr
    pytest_run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 str(work / "out" / "test_cex.py")], cwd=elsewhere, env=env, capture_output=True,
                                text=True)
    assert pytest_run.returncode == 0, pytest_run.stdout + pytest_run.stderr


def test_the_exported_regression_can_assert_the_fix(tmp_path):
    """EXPECT = "violated" pins the bug; EXPECT = "fixed" asserts it stays fixed; each fails when
    the model says otherwise."""
    regression = tmp_path / "test_racy.py"
    assert main(["check", str(RACY), "--regression", str(regression), "--quiet"]) == 1
    source = regression.read_text()

    def outcome(text: str) -> int:
        """0 if the test function passes, 1 if it fails, as pytest would count it."""
        namespace = {"__file__": str(regression), "__name__": "test_racy"}
        exec(compile(text, str(regression), "exec"), namespace)
        try:
            namespace["test_mutualexclusion_counterexample_reproduces"]()
        except AssertionError:
            return 1
        return 0

    fixed_model = source.replace("OPTIONS = {'fixed': False}", "OPTIONS = {'fixed': True}")
    assert fixed_model != source
    as_fixed = 'EXPECT = "fixed"'
    assert list(itertools.starmap(lambda expect, text: outcome(text.replace('EXPECT = "violated"', expect)), [
        ('EXPECT = "violated"', source),       # the bug is there: pinned, passes
        ('EXPECT = "violated"', fixed_model),  # fixed: the pin fails, saying so
        (as_fixed, fixed_model),               # fixed and asserted: passes
        (as_fixed, source),                    # asserted fixed but the bug is back: fails
    ])) == [0, 1, 0, 1]
