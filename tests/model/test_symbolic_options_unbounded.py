"""The options' steps read without bounds (``isrcheck prove``'s encoding) are the explicit steps.

The unbounded relation has no bound guards, so it is compared with an explicit model one larger in
every bound (log size, records, leader epochs): from a state within the small model's bounds one
step stays within the larger one's, whose guards then never fire, so its successors are exactly
the relation's. Every reachable state of a small configuration per option is re-encoded in the
larger model (through the unbounded encoding: ``acked`` and ``served`` arrays, CONFLICT as -1) and
its successors compared, with their multiplicities: the description evaluated on concrete values
(``ConcreteOps``, choices enumerated), and for a few states z3's own unbounded reading (every
solution of ``Next(s, w)`` with arrays and quantifiers). The proof encoding's ``type_ok``, which
``prove`` assumes of every state, is checked on every one of those states.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from isrcheck.explorer.symbolic.ops import ConcreteOps, UnboundedZ3Ops
from isrcheck.explorer.symbolic.relation import concrete_successors, solver_successors
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.classic import classic
from tests.fixtures.states import random_walk_sample, reachable

SMALL = {"log_size": 1, "max_leader_epoch": 1}

CONFIGS = [
    pytest.param({**SMALL, "max_crashes": 1, "stops": "all", "unclean_election": "any"}, 2500,
                 id="controlled+crash+lossy-unclean-any"),
    pytest.param({**SMALL, "generation": "kip101", "max_crashes": 1, "stops": "lossy", "acks": "1",
                  "unclean_election": "highest-last-epoch", "kip966_unclean_recovery": True}, 2000,
                 id="kip966-lossy-unclean-highest-acks-1"),
    pytest.param({**SMALL, "max_records": 1, "acks": "all", "azs": 1, "max_az_failures": 1}, 900, id="one-zone-fails"),
    pytest.param({**SMALL, "consumer_reads": "leader", "max_crashes": 1, "stops": "crash"}, 1500,
                 id="reads-leader-crashes"),
    pytest.param({**SMALL, "max_records": 2, "consumer_reads": "any", "truncation": "on-fetch-hw-first"}, 500,
                 id="reads-any-K13-truncation"),
    pytest.param({**SMALL, "generation": "kip320", "expand_before_epoch_start": True, "acks": "all",
                  "min_insync_replicas": 2}, 300, id="K6-acks-all"),
]


def larger(model):
    """The same options, one more in every bound."""
    c = model.config
    return classic(**{**_options(model), "log_size": c.log_size + 1, "max_records": c.max_records + 1,
                      "max_leader_epoch": c.max_leader_epoch + 1})


_OPTIONS: dict[int, dict] = {}


def _options(model):
    return _OPTIONS[id(model)]


def build(options: dict):
    model = classic(**options)
    _OPTIONS[id(model)] = options
    return model


def re_encoded(sym_small, sym_big, state):
    """``state`` of the small model as a state of the larger one, through the unbounded encoding."""
    return sym_big.decode(ConcreteOps(), lambda x: x, sym_small.encode(state))


@pytest.mark.parametrize("options,at_least", CONFIGS)
def test_every_reachable_state_against_a_larger_explicit_model(options: dict, at_least: int) -> None:
    small = build(options)
    big = larger(small)
    sym_small, sym_big = make_symbolic(small, unbounded=True), make_symbolic(big, unbounded=True)
    ops = ConcreteOps()
    states = reachable(small)
    assert len(states) >= at_least
    for s in states:
        t = re_encoded(sym_small, sym_big, s)
        v = sym_big.encode(t)
        assert sym_big.type_ok(ops, v), f"type_ok fails on the reachable {big.state_view(t)}"
        want = Counter((type(a).__name__, u) for a, u in big.successors(t))
        got = Counter(concrete_successors(sym_big, t, ops))
        assert got == want, f"from {big.state_view(t)}: only unbounded {got - want}; only explicit {want - got}"


def test_z3_unbounded_reading_sample() -> None:
    """z3's reading without bounds (arrays, quantifiers, the consumer's offset a choice) has the
    same successors on a few states with stops, acks, a flush and consumer reads."""
    small = build({**SMALL, "consumer_reads": "any", "max_crashes": 1, "stops": "lossy", "acks": "1"})
    big = larger(small)
    sym_small, sym_big = make_symbolic(small, unbounded=True), make_symbolic(big, unbounded=True)
    for s in random_walk_sample(small, 4, seed=11):
        t = re_encoded(sym_small, sym_big, s)
        want = Counter((type(a).__name__, u) for a, u in big.successors(t))
        got = Counter(solver_successors(sym_big, UnboundedZ3Ops(), t))
        # The solver gives each successor state once: compare the sets of (step, state).
        assert set(got) == set(want), f"from {big.state_view(t)}"


def test_a_wrong_option_step_is_caught() -> None:
    """The comparison can fail: the unbounded lossy stop keeps the whole log."""
    small = build({**SMALL, "max_crashes": 1, "stops": "lossy"})
    big = larger(small)
    sym_small, sym_big = make_symbolic(small, unbounded=True), make_symbolic(big, unbounded=True)
    steps = list(sym_big.steps())
    for i, step in enumerate(steps):
        if step.label == "BrokerCrash":
            original = step.fn

            def broken(o, v, original=original):
                guard, nxt = original(o, v)
                if nxt is not None:
                    nxt.length = list(v.length)
                return guard, nxt

            steps[i] = replace(step, fn=broken)
    sym_big._steps = steps
    ops = ConcreteOps()

    def differs(s) -> bool:
        t = re_encoded(sym_small, sym_big, s)
        return Counter(concrete_successors(sym_big, t, ops)) != Counter(
            (type(a).__name__, u) for a, u in big.successors(t))

    assert any(differs(s) for s in sorted(reachable(small)))


def test_a_cti_decodes_every_served_offset_type_ok_allows() -> None:
    """type_ok lets a consumer have been served a record at an offset below nrid past every log end
    (record 1 at offset 2, every log empty): the CTI's explicit model is large enough to decode it."""
    model = build({"consumer_reads": "any", "log_size": 3, "max_records": 3})
    sym, ops = make_symbolic(model, unbounded=True), ConcreteOps()
    v = sym.encode(model.init_states()[0])
    v.nrid, v.served = 3, (0, 0, 2)
    assert sym.type_ok(ops, v)
    explicit = sym.explicit_for(ops, lambda x: x, [v])
    state = sym.decode(ops, lambda x: x, v, explicit)
    assert explicit.state_view(state)["served"] == {"0": None, "1": None, "2": 1}
