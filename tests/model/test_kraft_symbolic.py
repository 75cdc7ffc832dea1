"""The KRaft family's symbolic form (model/kraft/symbolic) is the explicit model: same successors.

Every reachable state of two small 2-broker configurations, and seeded random-walk samples of
K11's and K7's anchors (3 brokers) and of configurations with the options the anchors leave off
(leader shrinks, both kinds of KIP-966 clean shutdown, avoid-last-replica-standing, the
KAFKA-19996 fix, K7's HW rule), are checked by evaluating the symbolic steps on the concrete state
(``ConcreteOps``) with every choice enumerated: the (action type, next state) pairs must equal the
explicit ones, with their multiplicities. A few states also ask z3 for every solution of
``Next(s, w)`` (the bit-vector reading the BMC uses). A mutated rule is caught. Then BMC finds the
length BFS finds and replays it, and the command line proves, refuses and answers as documented.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.explorer.symbolic.ops import BoundedZ3Ops, ConcreteOps
from isrcheck.explorer.symbolic.relation import concrete_successors, solver_successors
from isrcheck.model.kraft.fields import LEADER
from isrcheck.model.kraft.symbolic import KraftSymbolic
from isrcheck.model.kraft.symbolic.derived import KraftReader
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.states import reachable

ANCHOR = {"replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2, "max_fencings": 1,
          "max_crashes": 1, "stops": "lossy"}
# The lemmas of the history sets that read no history: checked on explicit states like the others.
NO_HISTORY = ("OwnEpochAddsByRequest", "HwWithinLog")
SMALL = {"replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 0, "max_crashes": 1,
         "stops": "lossy"}


def random_walk_sample(model, count: int, seed: int) -> list:
    """``count`` distinct states of seeded random walks (restarting with probability 0.03), in the
    order met (KRaft states mix ints and tuples in a field, so they are not sorted)."""
    rng = random.Random(seed)
    init = model.init_states()[0]
    sample, state = {init: None}, init
    while len(sample) < count:
        succ = list(model.successors(state))
        state = init if not succ or rng.random() < 0.03 else rng.choice(succ)[1]
        sample[state] = None
    return list(sample)


def kraft(generation: str, **options):
    return build_model("classic", {"generation": generation, **options})


def mismatches(model, sym, states, successors) -> list[str]:
    out = []
    for s in states:
        want = Counter((type(a).__name__, t) for a, t in model.successors(s))
        got = Counter(successors(s))
        if got != want:
            out.append(f"from {model.state_view(s)}: only symbolic {got - want}; only explicit {want - got}")
    return out


def check_concrete(model, states) -> int:
    sym = make_symbolic(model)
    assert isinstance(sym, KraftSymbolic)
    ops = ConcreteOps()
    assert mismatches(model, sym, states, lambda s: concrete_successors(sym, s, ops)) == []
    return len(states)


@pytest.mark.parametrize("generation", ["kraft-3.5", "kraft-kip966"])
def test_every_reachable_state_of_a_small_configuration(generation):
    model = kraft(generation, **SMALL)
    states = reachable(model)
    assert check_concrete(model, states) == len(states) > 200


@pytest.mark.parametrize("generation,options,count", [
    ("kraft-3.5", ANCHOR, 200),  # K11's anchor
    ("kraft-kip966", ANCHOR, 200),  # K11-fixed's
    ("kraft-3.5", {**ANCHOR, "max_crashes": 0, "stops": "all", "hw_over_maximal_isr": False}, 200),  # K7's
    ("kraft-kip966", {"replicas": 2, "min_insync_replicas": 1, "max_records": 2, "max_fencings": 1,
                      "max_crashes": 1, "stops": "controlled", "max_leader_shrinks": 1}, 200),
    ("kraft-3.5", {"replicas": 2, "min_insync_replicas": 1, "max_records": 2, "max_fencings": 1, "max_crashes": 1,
                   "stops": "controlled", "max_leader_shrinks": 1, "avoid_last_replica_standing": True}, 200),
    ("kraft-kip966", {**ANCHOR, "max_records": 2, "init_isr_size": 3, "max_crashes": 0, "stops": "all",
                      "expand_at_leo_under_min_isr": True}, 200),
], ids=["K11", "K11-fixed", "K7", "kip966-shrinks-clean", "3.5-shrinks-avoid-LRS", "kip966-KAFKA-19996-fix"])
def test_random_walk_samples(generation, options, count):
    model = kraft(generation, **options)
    assert check_concrete(model, random_walk_sample(model, count, seed=26)) == count


class WithoutHistory:
    """The symbolic model with its history (``vars.History``) projected away: an explicit state
    pins the real fields only, so each successor is one solution whatever history it records."""

    def __init__(self, sym) -> None:
        self.sym = sym

    def __getattr__(self, name):
        return getattr(self.sym, name)

    def encode(self, state):
        v = self.sym.encode(state)
        v.h = None
        return v


def test_z3_all_solutions_sample():
    """The bit-vector reading of the same relation (what BMC solves) has the same successors."""
    model = kraft("kraft-kip966", **ANCHOR)
    sym = make_symbolic(model)
    ops = BoundedZ3Ops(width=sym.int_bits)
    states = random_walk_sample(model, 2, seed=5)
    assert mismatches(model, sym, states, lambda s: solver_successors(WithoutHistory(sym), ops, s)) == []


def test_a_mutated_rule_is_caught(monkeypatch):
    """KIP-966's CanAdvanceHwm ISR condition dropped from the symbolic reading only: the test above
    would fail."""
    monkeypatch.setattr(KraftReader, "hw_isr_ok", lambda self, isr: True)
    model = kraft("kraft-kip966", **ANCHOR)
    sym = make_symbolic(model)
    ops = ConcreteOps()
    states = random_walk_sample(model, 150, seed=26)
    assert mismatches(model, sym, states, lambda s: concrete_successors(sym, s, ops))


def test_bmc_finds_the_bfs_length_and_replays():
    """Kafka 3.5 on 2 brokers with min ISR 1 loses an acknowledged record in 5 states, as BFS finds
    (the trace is replayed through the explicit model before it is returned)."""
    model = kraft("kraft-3.5", **{**SMALL, "max_fencings": 1})
    result = bmc(make_symbolic(model), depth=6, properties=["NoCommittedRecordLostGlobally"])
    assert result.verdict == "violation" and result.depth == 5
    assert len(result.violations[0].trace) == 5 and result.violations[0].property == "NoCommittedRecordLostGlobally"
    # The work per length, counted (SAT conflicts: the same on a loaded machine), one figure a length.
    assert len(result.stats["sat_conflicts"]) == len(result.stats["solver_seconds"]) == 5
    assert result.stats["sat_conflicts"][-1] > 0


def test_cli_bmc_and_prove(capsys):
    common = ["classic", "--generation", "kraft-kip966", "--replicas", "2", "--min-insync-replicas", "1",
              "--max-records", "1", "--max-fencings", "0", "--max-crashes", "1", "--stops", "lossy"]
    assert main(["bmc", *common, "--depth", "4", "--quiet"]) == 0
    assert "no violation" in capsys.readouterr().out
    assert main(["prove", *common, "--invariant", "MetadataLogMatching", "--quiet"]) == 0
    assert "Proved: MetadataLogMatching" in capsys.readouterr().out
    assert main(["prove", *common, "--lemma", "Foo"]) == 2
    err = capsys.readouterr().err
    assert "no built-in lemma 'Foo'; its lemmas are" in err and "LeaderInIsr" in err and "Traceback" not in err


def test_prove_with_kraft_lemmas(capsys):
    """The family's lemmas are chosen by name and checked, not assumed: FollowerRoleShape alone is not
    inductive (a broker whose registration is answered would keep a follower's role with no leader
    named), with StoppedBrokerIdle (a broker that is not running has no role) it is. (Lemmas with
    steadier solver times than LeaderInIsr's CTI, which took 0.9-14 s CPU depending on z3's names.)"""
    common = ["prove", "classic", "--generation", "kraft-kip966", "--replicas", "2", "--min-insync-replicas", "1",
              "--max-records", "1", "--max-fencings", "0", "--max-crashes", "1", "--stops", "lossy",
              "--invariant", "MetadataLogMatching", "--quiet"]
    assert main([*common, "--lemma", "FollowerRoleShape"]) == 8
    out = capsys.readouterr().out
    assert "FollowerRoleShape breaks" in out and "ReceiveBrokerRegResponse" in out
    assert main([*common, "--lemma", "StoppedBrokerIdle", "--lemma", "FollowerRoleShape"]) == 0
    out = capsys.readouterr().out
    assert "Proved: MetadataLogMatching" in out and "lemmas: StoppedBrokerIdle, FollowerRoleShape" in out


def test_every_kraft_lemma_has_a_meaning(capsys):
    """--list-lemmas prints each lemma with its meaning: none is left without one. The lemmas over
    the history (vars.History, kept in the bounded encoding only) are offered with --bounded only."""
    from isrcheck.model.kraft.symbolic.history_lemmas import HISTORY_MEANING, NO_HISTORY
    from isrcheck.model.kraft.symbolic.lemmas import MEANING, STRUCTURAL_LEMMAS
    from isrcheck.model.kraft.symbolic.target_lemmas import TARGET_MEANING, TARGET_NO_HISTORY
    meaning = {**MEANING, **TARGET_MEANING}  # target_lemmas.py's too
    over_history = set(HISTORY_MEANING) - set(NO_HISTORY) | set(TARGET_MEANING) - set(TARGET_NO_HISTORY)
    sym = make_symbolic(kraft("kraft-kip966", **SMALL))
    assert set(sym.lemmas()) == set(meaning) and set(STRUCTURAL_LEMMAS) <= set(sym.lemmas())
    unbounded = make_symbolic(kraft("kraft-kip966", **SMALL), unbounded=True)
    assert set(unbounded.lemmas()) == set(meaning) - over_history
    assert main(["prove", "classic", "--generation", "kraft-kip966", "--list-lemmas", "--bounded"]) == 0
    lemma_lines = capsys.readouterr().out.split("\n\n")[0]  # the named sets follow a blank line
    listed = dict(line.split("  ", 1) for line in lemma_lines.splitlines())
    assert set(listed) == set(meaning)
    assert all(listed[name] == meaning[name].strip().splitlines()[0] for name in meaning)


def test_history_lemmas_refused_without_bounded(capsys):
    """The epoch-history set reads the history the unbounded encoding does not keep: without
    --bounded it is refused by name (exit 2), not proved about variables nothing sets."""
    status = main(["prove", "classic", "--generation", "kraft-kip966", *"--replicas 2 --min-insync-replicas 1 "
                   "--max-records 1 --max-fencings 0 --max-crashes 1 --stops lossy".split(),
                   "--invariant", "MetadataLogMatching", "--lemma-set", "epoch-history", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "lemma set 'epoch-history' names EpochStartKept" in err and "Traceback" not in err
    assert "add --bounded" in err


@pytest.mark.parametrize("command,option,words", [
    ("bmc", ["--split-fetch"], "--split-fetch"),
    ("prove", ["--max-reassignments", "1", "--spare-brokers", "1"], "--max-reassignments"),
    ("bmc", ["--max-crashes", "1", "--stops", "all"], "more than one shutdown"),
])
def test_cli_refuses_what_the_symbolic_form_lacks_by_name(command, option, words, capsys):
    depth = ["--depth", "3"] if command == "bmc" else []
    argv = [command, "classic", "--generation", "kraft-kip966", *option, *depth]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "KRaft" in err and "Traceback" not in err


def test_metadata_lemmas_hold_in_every_reachable_state():
    """The lemmas about the metadata log's history (proved inductive with the structural ones at
    K11-fixed's bounds, docs/kraft.md), the ones inductive in the bounded encoding and the
    candidates toward LeaderCompleteness are true in every reachable state of a small KIP-966
    configuration, each evaluated on the state's encoding (a candidate that a reachable state
    breaks is wrong, not merely not inductive)."""
    from isrcheck.model.kraft.symbolic.lemmas import (
        BOUNDED_INDUCTIVE_LEMMAS,
        EPOCH_WRITER_LEMMAS,
        HISTORY_LEMMAS,
        LEADER_COMPLETENESS_CANDIDATES,
        METADATA_LEMMAS,
    )
    model = kraft("kraft-kip966", **{**SMALL, "max_fencings": 1})
    sym, ops = make_symbolic(model, unbounded=True), ConcreteOps()
    lemmas = sym.lemmas()
    names = [*METADATA_LEMMAS, *HISTORY_LEMMAS, *BOUNDED_INDUCTIVE_LEMMAS, *EPOCH_WRITER_LEMMAS,
             *LEADER_COMPLETENESS_CANDIDATES, *NO_HISTORY]
    states = reachable(model)
    encoded = [(s, sym.encode(s)) for s in states]  # once per state: the lemmas read the same encoding
    broken = {n: model.state_view(s) for s, v in encoded for n in names if not lemmas[n](ops, v)}
    assert len(states) > 1000 and broken == {}


def test_lemmas_hold_on_random_walks_at_k11_fixed_bounds():
    """The same lemmas on seeded random walks at K11-fixed's bounds (3 brokers, min ISR 2), a
    sample that holds zombie leaders (leading at a leader epoch the controller has left) and
    brokers in the ELR, the states the lemmas toward LeaderCompleteness are about."""
    from isrcheck.model.kraft.symbolic.lemmas import (
        BOUNDED_INDUCTIVE_LEMMAS,
        EPOCH_WRITER_LEMMAS,
        HISTORY_LEMMAS,
        LEADER_COMPLETENESS_CANDIDATES,
        METADATA_LEMMAS,
    )
    model = kraft("kraft-kip966", **ANCHOR)
    sym, ops = make_symbolic(model, unbounded=True), ConcreteOps()
    lemmas = sym.lemmas()
    states = [sym.encode(s) for s in random_walk_sample(model, 1500, seed=7)]
    assert any(x.role == LEADER and x.md_le < v.m_le[-1] for v in states for x in v.b)
    assert any(any(elr[-1] for elr in v.m_elr) for v in states)
    names = [*METADATA_LEMMAS, *HISTORY_LEMMAS, *BOUNDED_INDUCTIVE_LEMMAS, *EPOCH_WRITER_LEMMAS,
             *LEADER_COMPLETENESS_CANDIDATES, *NO_HISTORY]
    assert [n for n in names if not all(lemmas[n](ops, v) for v in states)] == []


def symbolic_walk(sym, count: int, seed: int) -> list:
    """``count`` states of seeded random walks of the symbolic relation itself, evaluated
    concretely from the initial state (restarting with probability 0.03): the real fields and the
    history (``vars.History``) each step records, which the explicit model does not keep."""
    rng, ops = random.Random(seed), ConcreteOps()
    start = sym.encode(sym.explicit.init_states()[0])
    out, v = [], start
    while len(out) < count:
        succ = [nxt for step in sym.steps() for guard, nxt in ops.all_runs(lambda step=step, v=v: step.fn(ops, v))
                if guard and nxt is not None]
        v = start if not succ or rng.random() < 0.03 else rng.choice(succ)
        out.append(v)
    return out


def test_history_lemmas_hold_on_symbolic_walks():
    """The history's lemmas (history_lemmas.py) cannot be checked on BFS's states (the explicit
    model keeps no history): they rest on induction, and are checked here on walks of the relation
    that records the history, at K11-fixed's bounds and with three fencings. The walks reach what
    the lemmas are about (an epoch begun after the first, a broker that lost records, one that
    registered again), and every state's real fields are a state of the explicit model."""
    from isrcheck.model.kraft.symbolic.history_lemmas import (
        EPOCH_HISTORY_2_CANDIDATES,
        EPOCH_HISTORY_2_LEMMAS,
        EPOCH_HISTORY_CANDIDATES,
        EPOCH_HISTORY_LEMMAS,
    )
    from isrcheck.model.kraft.symbolic.history_lemmas_3 import EPOCH_HISTORY_3_LEMMAS, EPOCH_HISTORY_3_LEMMAS_2
    ops = ConcreteOps()
    names = [*EPOCH_HISTORY_LEMMAS, *EPOCH_HISTORY_2_LEMMAS, *EPOCH_HISTORY_2_CANDIDATES, *EPOCH_HISTORY_CANDIDATES,
             *EPOCH_HISTORY_3_LEMMAS, *EPOCH_HISTORY_3_LEMMAS_2]
    for options, seed in ((ANCHOR, 3), ({**ANCHOR, "max_fencings": 3}, 4)):
        model = kraft("kraft-kip966", **options)
        sym = make_symbolic(model)
        lemmas = sym.lemmas()
        states = symbolic_walk(sym, 600, seed)
        assert any(v.h.es[2] != -1 for v in states) and any(max(v.h.lost) > 0 for v in states)
        assert any(max(v.h.reg) > 0 for v in states)
        assert any(v.h.hwe >= 2 for v in states)  # a commit at a leader epoch past the first
        # a follower's HW taken at a leader epoch past the first (h.hwat), and one registered again in the ISR
        assert any(x.hw >= 1 and at >= 2 and x.role != LEADER for v in states
                   for x, at in zip(v.b, v.h.hwat, strict=True))
        assert any(v.h.reg[f] >= 1 and v.m_isr[f][v.mlen - 1] for v in states for f in range(3))
        assert all(sym.type_ok(ops, v) for v in states)
        assert [n for n in names if not all(lemmas[n](ops, v) for v in states)] == []
        sample = states[::50]
        assert all(model.state_view(sym.decode(ops, lambda x: x, v)) for v in sample)


def test_history_is_typed_and_ignored_by_decoding():
    """type_ok bounds the history (an epoch start past the values, a registration past the metadata
    log, a leader epoch begun by no broker are refused), and a decoded state is the same whatever
    history the symbolic state holds (a counterexample prints the explicit model's fields only)."""
    model = kraft("kraft-kip966", **ANCHOR)
    sym, ops = make_symbolic(model), ConcreteOps()
    v = sym.encode(model.init_states()[0])
    assert sym.type_ok(ops, v) and v.h.es[1] == 0 and v.h.esl[1] == 0 and v.h.es[2] == -1
    for field, value in (("es", 5), ("esl", 3), ("esb", -1)):
        bad = v.copy()
        setattr(bad.h, field, tuple(value if e == 2 else x for e, x in enumerate(getattr(v.h, field))))
        assert not sym.type_ok(ops, bad), field
    for field, value in (("reg", v.mlen + 1), ("lost", -1)):
        bad = v.copy()
        getattr(bad.h, field)[0] = value
        assert not sym.type_ok(ops, bad), field
    assert v.h.hwe == 0
    bad = v.copy()
    bad.h.hwe = -1  # the commit's leader epoch: not negative
    assert not sym.type_ok(ops, bad)
    bad = v.copy()
    bad.h.lostk[0] = v.mlen + 1  # where a loss happened: within the metadata log
    assert not sym.type_ok(ops, bad)
    bad = v.copy()
    bad.h.hwat[1] = -1  # the leader epoch at which a HW last grew: not negative
    assert not sym.type_ok(ops, bad)
    other = v.copy()
    other.h.lost[1], other.h.reg[2], other.h.hwe, other.h.lostk[0], other.h.hwat[2] = 3, 1, 2, 1, 2
    assert sym.decode(ops, lambda x: x, other) == sym.decode(ops, lambda x: x, v) == model.init_states()[0]


def test_history_unchanged_by_steps_that_record_nothing():
    """A step that changes no field the history reads leaves the history the very same terms, so
    the relation (and BMC's partial-order reduction) gets no case for it (a fencing appends a
    metadata record and records nothing); a registration records."""
    from isrcheck.explorer.symbolic.relation import branches, leaves, same_term
    model = kraft("kraft-kip966", **ANCHOR)
    sym = make_symbolic(model)
    ops = BoundedZ3Ops(width=sym.int_bits)
    v = sym.variables(ops, "s")
    found = branches(sym, ops, v)
    kept = [label for label, _, nxt in found
            if all(same_term(a, b) for a, b in zip(leaves(v.h), leaves(nxt.h), strict=True))]
    changed = {label for label, _, nxt in found} - set(kept)
    assert {"FenceBroker", "UnfenceBroker", "SendAlterPartitionRequest"} <= set(kept) - changed
    assert {"ReceiveBrokerRegRequest", "Shutdown", "Fetch"} <= changed - set(kept)
