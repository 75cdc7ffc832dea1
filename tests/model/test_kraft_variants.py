"""A user's KRaft variant (model/kraft/variants.py): one step changed in the user's own file runs with
check, --workers, bmc and prove, its straight-line Python and its z3 relation read from the same
form (docs/variants.md, "A KRaft variant"). Spark: tests/explorer/search/spark/test_variant.py."""

from __future__ import annotations

import pickle

import pytest
from isrcheck.explorer.check import check
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.symbolic.ops import ConcreteOps
from isrcheck.explorer.symbolic.relation import concrete_successors
from isrcheck.model.kraft import described
from isrcheck.model.kraft.staging import source_of
from isrcheck.model.kraft.variants import step_form, variant, variant_model

from tests.fixtures.paths import ROOT
from tests.fixtures.states import breadth_first
from tests.model.test_kraft_symbolic import mismatches

EXAMPLE = str(ROOT / "docs" / "examples" / "kraft_epoch_survives.py")
# The example's options, for the base generation.
OPTIONS = {"replicas": 2, "max_records": 1, "min_insync_replicas": 2, "max_fencings": 1, "max_crashes": 1,
           "stops": "lossy"}


def example():
    return build_model(EXAMPLE, {})


def base():
    return build_model("classic", {"generation": "kraft-kip966", **OPTIONS})


def test_check_finds_the_hole_in_8_states_and_the_base_has_none_there():
    """BFS's shortest violation is 8 states; docs/variants.md's ``bmc ... --depth 8  # exit 1`` (run by
    tests/test_docs_commands.py) is the BMC half: z3 finds one within 8 states, so the same length."""
    model = example()
    r = check(model, properties=["LeaderCandidateCompleteness"])
    assert not r.ok and len(r.violations[0].trace) == 8
    assert "DataLossShutdown" in [str(s.action) for s in r.violations[0].trace.steps][4]
    # KIP-966 as built in: no violation of any invariant within the variant's length and one more.
    assert check(base(), max_depth=9).ok


def test_workers_and_pickling_keep_the_variant():
    model = example()
    again = pickle.loads(pickle.dumps(model))
    assert again.variant == model.variant and again.generation == "kip966-epoch-survives-data-loss"
    assert "variant kip966-epoch-survives-data-loss" in repr(again)
    one = check(model, properties=["LeaderCompleteness"], workers=1)
    two = check(again, properties=["LeaderCompleteness"], workers=2)
    assert len(one.violations[0].trace) == len(two.violations[0].trace) == 9
    assert one.violations[0].trace.steps[-1].action == two.violations[0].trace.steps[-1].action
    assert str(two.violations[0].trace.steps[-1].action).startswith("ReceiveBrokerRegResponse")


def test_the_form_changes_its_step_only_in_the_generated_source():
    ours = source_of(example().config, example().layout).splitlines()
    theirs = source_of(base().config, base().layout).splitlines()
    gone = [line.strip() for line in theirs if line not in ours]
    # the broker epoch, in each broker's shutdown, once per outcome of the controller's election
    assert sorted(set(gone)) == ["nxt[1] = 0", "nxt[23] = 0"] and gone.count("nxt[1] = 0") == gone.count("nxt[23] = 0")
    assert [line for line in ours if line not in theirs] == []


def test_derived_relation_is_the_explicit_model_where_the_form_matters():
    model, kip966 = example(), base()
    states = breadth_first(model)
    differ = [s for s in states if model.successors(s) != kip966.successors(s)]
    assert len(differ) > 30  # the form changes something: the comparison can fail
    sample = differ + states[:150]
    sym, ops = model.symbolic(), ConcreteOps()
    assert mismatches(model, sym, sample, lambda s: concrete_successors(sym, s, ops)) == []


def test_a_copy_of_the_builtin_step_as_a_form_is_the_builtin_step():
    step_form("kraft-lossy-as-built-in", of="UncleanShutdown")(described.lossy_shutdown)
    copy = variant_model(variant("kraft-kip966", name="kip966-copy", forms="kraft-lossy-as-built-in"), **OPTIONS)
    kip966 = base()
    states = breadth_first(kip966, limit=1500)
    assert len(states) >= 1500 and all(copy.successors(s) == kip966.successors(s) for s in states)


def test_a_flag_variant_is_the_other_generations_rule():
    """A rule flag as a variant: KIP-966 without the HW's min-ISR condition is read as 3.5's rule."""
    loose = variant_model(variant("kraft-kip966", name="kip966-hw-any-isr", hw_needs_min_isr=False), **OPTIONS)
    assert not loose.config.gen.hw_needs_min_isr and loose.config.generation == "kraft-kip966"
    states = breadth_first(base(), limit=1000)
    assert any(loose.successors(s) != base().successors(s) for s in states)


@pytest.mark.parametrize("call,words", [
    (lambda: variant("kraft-kip999", name="v"), "base generation 'kraft-kip999' is unknown: choose one of "
                                                "kraft-3.5, kraft-kip966"),
    (lambda: variant("kraft-kip966", name="v", fencing=True), "fencing is no rule of a KRaft generation: "
                                                             "choose among isr_floor_one, elr"),
    (lambda: variant("kraft-kip966", name="v", forms=("nope",)), "step form 'nope' is unknown: choose one of"),
    (lambda: variant("kraft-kip966", name="kraft-3.5"), "the name is a built-in generation's"),
    (lambda: step_form("x", of="Nope")(lambda x, b: None), "'Nope' is no KRaft step: choose one of BrokerStart, "
                                                           "ReceiveBrokerRegResponse"),
])
def test_bad_variants_are_refused_with_the_known_names(call, words):
    with pytest.raises(ValueError) as e:
        call()
    assert words in str(e.value)


def test_a_form_this_process_has_not_loaded_is_named():
    """A variant unpickled where its user's file was not loaded says which form is missing."""
    from dataclasses import replace

    gen = replace(example().variant, forms=("never-registered",))
    with pytest.raises(ValueError, match="step form.s. never-registered are not registered in this process"):
        described.steps_of(gen)


def test_two_forms_of_one_step_and_a_taken_form_name_are_refused():
    example()  # registers its form
    step_form("kraft-lossy-other", of="UncleanShutdown")(described.lossy_shutdown)
    with pytest.raises(ValueError, match="two forms replace UncleanShutdown: keep one"):
        variant("kraft-kip966", name="v", forms=("epoch-survives-data-loss", "kraft-lossy-other"))
    with pytest.raises(ValueError, match="KRaft step form 'epoch-survives-data-loss' is already defined"):
        step_form("epoch-survives-data-loss", of="Fetch")(described.fetch)


def test_cli_refuses_an_unknown_base_or_step_in_a_users_file(tmp_path, capsys):
    text = (ROOT / "docs" / "examples" / "kraft_epoch_survives.py").read_text()
    bad_base = tmp_path / "bad_base.py"
    bad_base.write_text(text.replace('variant("kraft-kip966"', 'variant("kraft-kip999"').replace(
        '"epoch-survives-data-loss"', '"epoch-survives-base"'))  # a form name of its own: another module's
    assert main(["check", str(bad_base)]) == 2
    assert "base generation 'kraft-kip999' is unknown: choose one of kraft-3.5, kraft-kip966" in capsys.readouterr().err
    bad_step = tmp_path / "bad_step.py"
    bad_step.write_text(text.replace('of="DataLossShutdown"', 'of="LossyShutdown"').replace(
        '"epoch-survives-data-loss"', '"epoch-survives-lossy"'))
    assert main(["bmc", str(bad_step), "--depth", "2"]) == 2
    err = capsys.readouterr().err
    assert "'LossyShutdown' is no KRaft step: choose one of BrokerStart" in err and "Traceback" not in err


def test_the_symbolic_form_refuses_what_it_lacks_for_a_variant_too():
    """(prove itself: docs/variants.md's ``prove`` command, run by tests/test_docs_commands.py.)"""
    split = variant_model(variant("kraft-kip966", name="kip966-split"), **OPTIONS, split_fetch=True)
    from isrcheck.explorer.errors import UserError

    with pytest.raises(UserError, match="variant 'kip966-split' has no symbolic form for these options: .*split"):
        split.symbolic()
