"""A user's variant (model/variants.py): one rule changed in the user's own file runs with check,
--workers, bmc and prove, its z3 relations derived from the same description (docs/variants.md)."""

from __future__ import annotations

import pickle

import pytest
from isrcheck.explorer.check import check
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.explorer.symbolic.ops import ConcreteOps
from isrcheck.explorer.symbolic.relation import concrete_successors
from isrcheck.model.native import pure_python
from isrcheck.model.native.compiled import compiler
from isrcheck.model.variants import caught_up_rule, variant, variant_model

from tests.fixtures.classic import classic
from tests.fixtures.paths import ROOT
from tests.fixtures.states import random_walk_sample, reachable
from tests.model.test_symbolic_equivalence import assert_same

EXAMPLE = str(ROOT / "docs" / "examples" / "lag_one_isr.py")


def lag_one_model(**options):
    return build_model(EXAMPLE, options)


def test_check_finds_the_lag_one_hole_and_bmc_the_same_length():
    model = lag_one_model()
    r = check(model, properties=["StrongIsr"])
    assert not r.ok and len(r.violations[0].trace) == 8
    b = bmc(model.symbolic(), depth=8, properties=["StrongIsr"])
    assert b.verdict == "violation" and len(b.violations[0].trace) == 8


def test_the_base_generation_holds_where_the_variant_fails():
    """The rule is what changed: KIP-320 itself keeps StrongIsr at these bounds."""
    base = variant_model(variant("kip320", name="kip320-as-is"))
    assert check(base, properties=["StrongIsr"]).ok


def test_derived_relation_is_the_explicit_model_on_every_reachable_state():
    model = lag_one_model()
    sym = model.symbolic()
    states = reachable(model)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ConcreteOps())) == len(states) > 500


def test_the_k6_rule_as_a_variant_is_the_option():
    """The K6 rule (ISR expansion before the HW reaches the leader's epoch) as a variant's flag gives
    the successors of --expand-before-epoch-start, and its derived relation is the explicit one."""
    option = classic(generation="kip320", replicas=3, expand_before_epoch_start=True)
    k6 = variant_model(variant("kip320", name="kip320-k6", expand_waits_for_epoch_start=False), replicas=3)
    kip320 = classic(generation="kip320", replicas=3)
    states = sorted(reachable(option, limit=5000))  # the first levels, where the rule already matters
    assert all(option.successors(s) == k6.successors(s) for s in states)
    differ = [s for s in states if option.successors(s) != kip320.successors(s)]
    assert len(differ) > 50  # states where the rule matters: the comparison can fail
    sym = k6.symbolic()
    sample = differ + random_walk_sample(option, 300, seed=6)
    assert assert_same(k6, sym, sample, lambda s: concrete_successors(sym, s, ConcreteOps())) == len(sample)


def test_compiled_successors_where_a_compiler_is_found():
    """The rule fills the tables the C kernel reads: a variant runs at compiled speed."""
    model = lag_one_model()
    on_c = type(model.successors).__module__.startswith("_isrcheck_kernel_")
    assert on_c == (compiler() is not None and not pure_python())


def test_workers_and_pickling_keep_the_variant():
    model = lag_one_model()
    again = pickle.loads(pickle.dumps(model))
    assert again.generation == model.generation and again.variant.name == "kip320-lag-one"
    r = check(model, properties=["StrongIsr"], workers=2)
    assert not r.ok and len(r.violations[0].trace) == 8


@pytest.mark.parametrize("kwargs,words", [
    ({"isr_rule": "nope"}, "isr_rule='nope' is unknown: choose one of log-end, follower-end"),
    ({"truncate_to": "nope"}, "truncate_to='nope' is unknown: choose one of high-watermark, kip101, kip279"),
    ({"fencing": True}, "fencing is no rule of a generation: choose among next, isr_rule"),
    ({"next": ("FollowerReplicate", "LeaderWrite")}, "must name steps of ControllerElectLeader"),
])
def test_bad_variants_are_refused_with_the_known_names(kwargs, words):
    with pytest.raises(ValueError, match="variant 'v'") as e:
        variant("kip320", name="v", **kwargs)
    assert words in str(e.value)


def test_unknown_base_and_taken_rule_name_are_refused():
    with pytest.raises(ValueError, match="choose one of truncate-to-hw, kip101"):
        variant("kip999", name="v")
    with pytest.raises(ValueError, match="caught-up rule 'log-end' is already defined"):
        caught_up_rule("log-end")(lambda o, leader, follower, end, size: True)


def test_cli_check_and_bmc_and_prove(capsys):
    assert main(["check", EXAMPLE, "--invariant", "StrongIsr", "--quiet"]) == 1
    assert "StrongIsr (invariant) violated in a trace of 8 states" in capsys.readouterr().out
    assert main(["bmc", EXAMPLE, "--invariant", "StrongIsr", "--depth", "8", "--quiet"]) == 1
    assert "BMC: StrongIsr violated in a trace of 8 states" in capsys.readouterr().out
    lemmas = [a for name in LEADER_LEMMAS for a in ("--lemma", name)]  # the base generation's, by name
    assert main(["prove", EXAMPLE, "--invariant", "LeaderInIsr", *lemmas, "--quiet"]) == 0
    assert "Proved: LeaderInIsr" in capsys.readouterr().out
    assert main(["prove", EXAMPLE, "--invariant", "LeaderInIsr", "--lemma", "Nope", "--quiet"]) == 2
    assert "no built-in lemma 'Nope'; its lemmas are RecordEpochsSorted" in capsys.readouterr().err


# The lemmas that prove LeaderInIsr on KIP-320 (docs/proofs.md), which the variants keep.
LEADER_LEMMAS = ("LeaderNamedByItsEpoch", "QuorumIsLastRequest", "TrueLeaderIsrIsQuorumIsr",
                 "QuorumIsrIsLastRequestUntilAdopted")


# -- a step of one's own: a variant that changes a step's guard (docs/examples/eager_expand.py) ----------

EAGER = str(ROOT / "docs" / "examples" / "eager_expand.py")


def test_a_step_form_changes_a_guard_and_check_and_bmc_find_the_hole():
    """The form widens LeaderExpandIsr's guard under min.insync.replicas; the same options with the
    built-in step keep StrongIsr, so the form is what changed."""
    model = build_model(EAGER, {})
    assert model.generation.forms == ("expand-under-min-isr",)
    r = check(model, properties=["StrongIsr"])
    assert not r.ok and len(r.violations[0].trace) == 8
    assert r.violations[0].trace.steps[-1].action.__class__.__name__ == "LeaderExpandIsr"
    b = bmc(model.symbolic(), depth=8, properties=["StrongIsr"])
    assert b.verdict == "violation" and len(b.violations[0].trace) == 8
    assert check(classic(acks="all", min_insync_replicas=2, max_records=1), properties=["StrongIsr"]).ok


def test_a_step_forms_derived_relation_is_its_explicit_model():
    model = build_model(EAGER, {})
    sym = model.symbolic()
    states = reachable(model)
    assert assert_same(model, sym, states, lambda s: concrete_successors(sym, s, ConcreteOps())) == len(states) > 300


def test_a_copy_of_the_builtin_step_as_a_form_is_the_builtin_step():
    """A form replaces the step it names, and only it, in the generated Python and the generated C."""
    from isrcheck.model.steps import described
    from isrcheck.model.steps.next import next_successors
    from isrcheck.model.variants import step_form

    step_form("write-as-built-in", of="LeaderWrite")(described.leader_write)
    copy = variant_model(variant("kip320", name="kip320-copy", forms=("write-as-built-in",)))
    kip320 = classic(generation="kip320")
    python = next_successors(copy.tables)
    states = sorted(reachable(kip320))
    assert all(copy.successors(s) == python(s) == kip320.successors(s) for s in states) and len(states) == 5973


@pytest.mark.parametrize("forms,words", [
    (("nope",), "step form 'nope' is unknown: choose one of"),
    (("expand-under-min-isr", "expand-under-min-isr"), "two forms replace LeaderExpandIsr"),
])
def test_bad_step_forms_are_refused(forms, words):
    build_model(EAGER, {})  # registers its form
    with pytest.raises(ValueError, match="variant 'v'") as e:
        variant("kip320", name="v", forms=forms)
    assert words in str(e.value)


def test_a_form_of_a_step_outside_next_or_of_no_step_is_refused():
    from isrcheck.model.variants import step_form

    step_form("truncate-twice", of="FollowerTruncate")(lambda x: None)
    with pytest.raises(ValueError, match="replaces FollowerTruncate, which is not in its Next"):
        variant("kip320", name="v", forms="truncate-twice")
    with pytest.raises(ValueError, match="'Nope' is no step: choose one of ControllerElectLeader"):
        step_form("x", of="Nope")


def test_a_form_that_branches_in_python_on_the_state_is_refused_with_the_reason():
    """A description may branch in Python only on build-time values; a state value there would be
    decided once, at build time, so generating the function refuses it and says what to use."""
    from isrcheck.model.variants import step_form

    def branchy(x):
        for lead in x.replicas("lead"):
            if x.hw(lead) > 0:  # wrong: a state value in Python control flow
                x.emit(lead, 1)

    step_form("branchy-hw", of="LeaderIncHighWatermark")(branchy)
    with pytest.raises(TypeError, match="in Python control flow: use x.require"):
        variant_model(variant("kip320", name="v-branchy", forms=("branchy-hw",)))


# -- prove on a variant: the unbounded relation derived from the form (model/variant_symbolic.py) ---------

def _expand_any_follower(x):
    """KIP-320's LeaderExpandIsr admitting any follower on the leader's epoch, caught up or not."""
    from isrcheck.model.steps.described import true_leader

    for lead in true_leader(x):
        isr = x.isr(lead)
        for r in x.replicas("r"):
            x.require(x.not_(x.has(isr, r)), x.ld(r) == lead, x.ep(r) == x.ep(lead))
            x.put("isr", lead, x.with_(isr, r))
            x.put("qisr", None, x.with_(isr, r))
            x.emit(lead, r)


def test_prove_reads_a_step_form_unbounded_with_the_bases_lemmas():
    """LeaderInIsr is proved on a form with the base generation's lemmas, by name."""
    from isrcheck.explorer.symbolic.induction import prove
    from isrcheck.model.variants import step_form

    step_form("expand-any-follower", of="LeaderExpandIsr")(_expand_any_follower)
    model = variant_model(variant("kip320", name="kip320-expand-any", forms=("expand-any-follower",)))
    sym = model.symbolic(unbounded=True)
    lemmas = sym.lemmas()
    assert prove(sym, properties=["LeaderInIsr"], lemmas={n: lemmas[n] for n in LEADER_LEMMAS}).verdict == "proved"
    assert sym.explicit_for(None, int, []).variant.name == "kip320-expand-any"  # what a CTI is replayed on


def test_strong_isr_is_not_proved_on_the_lag_one_variant_its_cti_is_the_rule():
    """With the lemmas that prove StrongIsr for KIP-320, the variant's counterexample to induction is
    a LeaderExpandIsr admitting a follower one record short, replayed through the variant's explicit
    model; KIP-320's own step (the base) does not take it."""
    from isrcheck.explorer.symbolic.induction import prove
    from isrcheck.model.replication import ReplicationModel
    from isrcheck.model.symbolic.lemmas import ISR_PROOF_LEMMAS

    sym = lag_one_model().symbolic(unbounded=True)
    replayed_on, explicit_for = [], sym.explicit_for
    sym.explicit_for = lambda *a: replayed_on.append(explicit_for(*a)) or replayed_on[-1]
    lemmas = sym.lemmas()
    r = prove(sym, properties=["StrongIsr"], lemmas={n: lemmas[n] for n in ISR_PROOF_LEMMAS})
    assert r.verdict == "counterexample to induction"
    before, after = r.cti.trace.steps
    assert type(after.action).__name__ == "LeaderExpandIsr"
    assert replayed_on[-1].variant.name == "kip320-lag-one"
    base = ReplicationModel(replayed_on[-1].config, None, None, "all")  # same bounds, KIP-320's rules
    assert after.state in [t for _, t in replayed_on[-1].successors(before.state)]
    assert after.state not in [t for _, t in base.successors(before.state)]


def test_a_form_that_reads_a_bound_as_a_number_is_refused_for_prove_naming_it():
    """bmc reads x.log_size as the bound; prove has none, and says which form and line to change."""
    from isrcheck.explorer.errors import UserError
    from isrcheck.model.steps import described
    from isrcheck.model.variants import step_form

    def write_below_size(x):
        for lead in x.replicas("lead"):
            k = x.let(x.log_end(lead))
            x.require(x.ld(lead) == lead, k < x.log_size)  # bounded only: prove's log_size is None
            x.append(lead, x.nrid, x.ep(lead))
            x.put("nrid", None, x.nrid + 1)
            x.emit(lead, x.nrid, x.ep(lead), k)

    step_form("write-below-size", of="LeaderWrite")(write_below_size)
    model = variant_model(variant("kip320", name="kip320-sized", forms=("write-below-size",)))
    model.symbolic()  # bmc's bounded relation reads it
    with pytest.raises(UserError) as e:
        model.symbolic(unbounded=True)
    words = str(e.value)
    assert "'kip320-sized': step form 'write-below-size' (of LeaderWrite) cannot be read without bounds" in words
    assert "k < x.log_size" in words and "x.log_size is None" in words
    assert described.STEPS["LeaderWrite"].fn is described.leader_write  # the built-in step is untouched
