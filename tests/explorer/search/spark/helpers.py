"""Comparing a Spark run with a local run, and checking that a trace is a real path of the model."""

from __future__ import annotations

from isrcheck.explorer.contract import Kind

from isrcheck import check
from tests.fixtures.models import Counters


def summary(result):
    """What must agree between engines on a complete run: counts, depth, verdicts, trace lengths."""
    return {
        "distinct": result.distinct_states,
        "generated": result.generated_states,
        "depth": result.depth,
        "levels": result.levels,
        "complete": result.complete,
        "vacuous": sorted(result.vacuous),
        "violations": sorted((v.property, v.kind, len(v.trace)) for v in result.violations),
        "reached": sorted((name, len(trace)) for name, trace in result.examples.items()),
    }


def assert_valid_trace(model, trace):
    """Every trace starts at an initial state and each step is one of the model's successors."""
    assert trace.steps[0].action is None
    assert trace.steps[0].state in list(model.init_states())
    for before, step in zip(trace.steps, trace.steps[1:], strict=False):
        assert (step.action, step.state) in list(model.successors(before.state))


def assert_violations_hold(model, result):
    props = {p.name: p for p in model.properties()}
    for v in result.violations:
        assert_valid_trace(model, v.trace)
        if v.kind == "always":
            assert not props[v.property].predicate(v.trace.last)
        elif v.kind == "transition":
            prev, last = v.trace.steps[-2], v.trace.steps[-1]
            assert not props[v.property].predicate(prev.state, last.action, last.state)
        elif v.kind == "deadlock":
            assert list(model.successors(v.trace.last)) == []
    for name, trace in result.examples.items():
        assert_valid_trace(model, trace)
        assert props[name].kind is Kind.SOMETIMES and props[name].predicate(trace.last)


def compare(model, **options):
    """Run both engines with the same options; return (local, spark) results after checking they agree."""
    engine_options = {k: options.pop(k) for k in list(options) if k in (
        "master", "partitions", "driver_threshold", "checkpoint", "resume", "interrupt_after_level")}
    local = check(model, engine="local", **options)
    spark = check(model, engine="spark", **options, **engine_options)
    assert spark.engine == "spark" and spark.store == "fingerprint"
    if local.complete or spark.complete:
        assert summary(spark) == summary(local)
    else:
        # stop_at_first: the Spark engine finishes the level it was expanding, so counts differ;
        # the violation found first is still a shortest one.
        assert {v.property: len(v.trace) for v in spark.violations if v.property in
                {w.property for w in local.violations}} == {v.property: len(v.trace) for v in local.violations}
    assert_violations_hold(model, spark)
    return local, spark


class FloatAfterTwoSteps:
    """Breaks the state contract (a float) in a level computed on executors."""

    def init_states(self):
        return [(0,)]

    def successors(self, state):
        if state[0] < 3:
            yield "inc", (state[0] + 1,) if state[0] < 2 else (2.5,)

    def properties(self):
        from isrcheck import Property
        return [Property.always("Small", lambda s: s[0] < 10)]  # a run must check something


# Contract breakers for test_audit.py; defined here, not in the test module, because executors
# import them by module name and the test modules are not importable there.
class HiddenCounter(Counters):
    """Successors depend on how often the model object was asked (state kept between calls)."""

    calls = 0

    def successors(self, state):
        self.calls += 1
        succ = list(super().successors(state))
        return succ if self.calls % 2 else succ[::-1]


class NewInitEachCall(Counters):
    calls = 0

    def init_states(self):
        self.calls += 1
        return [(self.calls % 2,) * self.n]
