"""Properties of one's own (explorer/extra.py): added to any model from Python and from a file.

Each test checks an outcome a user relies on: the added property is checked (and fails where it
should, with the shortest trace), names stay unique, bad files and fields are refused as bad
input, and the model with its properties survives the trip to another process.
"""

from __future__ import annotations

import pickle

import pytest
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.extra import load_properties_file, with_properties, with_properties_file
from isrcheck.explorer.progress import Silent
from isrcheck.model.factory import make_model

import isrcheck
from tests.fixtures.models import Counters
from tests.fixtures.paths import ROOT

CONSUMER_READ = ROOT / "docs" / "examples" / "consumer_read.py"


@isrcheck.invariant
def SumBelowThree(s):
    """A generic model's state is handed over as it is (Counters has no read hook)."""
    return sum(s) < 3


def test_a_generic_model_gets_a_property_without_a_wrapper_class():
    model = with_properties(Counters(n=2, limit=3), [SumBelowThree])
    assert [p.name for p in model.properties()] == ["AllAtLimit", "SumBelowThree"]
    result = isrcheck.check(model, properties=["SumBelowThree"], workers=1, progress=Silent())
    assert [v.property for v in result.violations] == ["SumBelowThree"]
    assert len(result.violations[0].trace) == 4  # sums 0, 1, 2, 3: the shortest path there
    assert model.canonical((2, 0)) == (0, 2)  # everything else is the model's


def test_plain_functions_and_properties_are_accepted_lambdas_are_refused():
    def NoCounterAtTwo(s):
        return 2 not in s

    model = with_properties(Counters(), [NoCounterAtTwo, isrcheck.Property.always("Raw", lambda s: True)])
    assert [p.name for p in model.properties()][-2:] == ["NoCounterAtTwo", "Raw"]
    with pytest.raises(UserError, match="not a property"):
        with_properties(Counters(), [lambda s: True])


def test_a_name_clashing_with_the_models_is_refused_with_its_names():
    clash = isrcheck.invariant(lambda s: True, name="StrongIsr")
    with pytest.raises(UserError, match="name of the model's own property.*WeakIsr"):
        with_properties(make_model(), [clash])
    twice = isrcheck.invariant(lambda s: True, name="Mine")
    with pytest.raises(UserError, match="another added"):
        with_properties(make_model(), [twice, twice])


def test_an_unknown_name_is_refused_with_the_added_ones_listed():
    model = with_properties_file(make_model(consumer_reads="leader"), CONSUMER_READ)
    with pytest.raises(UserError, match="unknown property 'ConsumerReads'.*ConsumerReadsBelowServerHw"):
        isrcheck.check(model, properties=["ConsumerReads"], workers=1, progress=Silent())


def test_a_property_reading_a_field_the_options_do_not_add_is_refused_before_the_run():
    @isrcheck.invariant
    def NoConflict(s):
        return "CONFLICT" not in s.served.values()

    with pytest.raises(UserError, match="NoConflict.*--consumer-reads leader or any"):
        with_properties(make_model(), [NoConflict])
    with_properties(make_model(consumer_reads="leader"), [NoConflict])  # the option adds it: accepted


def test_a_read_the_code_scan_misses_is_still_bad_input_during_the_run():
    @isrcheck.invariant
    def Hidden(s):
        return s.controller.leader is None or getattr(s, "ser" + "ved") is not None

    model = with_properties(make_model(), [Hidden])
    # getattr with no default raises FieldNotInModel, a UserError: the engines let it through (exit 2)
    with pytest.raises(UserError, match="property 'Hidden': it read served .*added by --consumer-reads"):
        isrcheck.check(model, properties=["Hidden"], workers=1, progress=Silent())


def test_the_consumer_read_example_holds_and_fails_as_the_docs_say():
    model = with_properties_file(make_model(consumer_reads="leader"), CONSUMER_READ)
    held = isrcheck.check(model, properties=["ConsumerReadsBelowServerHw"], workers=1, progress=Silent())
    assert held.ok and held.complete
    failed = isrcheck.check(model, properties=["ConsumerReadsBelowLeaderHw"], workers=1, progress=Silent())
    (v,) = failed.violations
    assert v.property == "ConsumerReadsBelowLeaderHw" and len(v.trace) == 9
    assert type(v.trace.actions[-1]).__name__ == "ConsumerFetch"


@pytest.mark.parametrize("how", [{"workers": 2}, {"workers": 1, "symmetry": True}, {"workers": 2, "symmetry": True}])
def test_every_local_engine_gives_the_same_verdict(how):
    model = with_properties_file(make_model(consumer_reads="leader"), CONSUMER_READ)
    names = ["ConsumerReadsBelowServerHw", "ConsumerReadsBelowLeaderHw"]
    one = isrcheck.check(model, properties=names, workers=1, stop_at_first=False, progress=Silent(),
                         symmetry=how.get("symmetry", False))
    other = isrcheck.check(model, properties=names, stop_at_first=False, progress=Silent(), **how)
    assert [(v.property, len(v.trace)) for v in other.violations] == \
        [(v.property, len(v.trace)) for v in one.violations] == [("ConsumerReadsBelowLeaderHw", 9)]
    assert other.distinct_states == one.distinct_states


def test_a_model_with_a_properties_file_pickles_by_reference_to_the_file():
    from pyspark import cloudpickle

    model = with_properties_file(make_model(consumer_reads="leader"), CONSUMER_READ)
    for dumps in (pickle.dumps, cloudpickle.dumps):
        again = pickle.loads(dumps(model))
        assert [p.name for p in again.properties()] == [p.name for p in model.properties()]
        assert again.source == str(CONSUMER_READ)


@pytest.mark.parametrize(("text", "message"), [
    ("import no_such_module_here\n", "failed to load: ModuleNotFoundError"),
    ("X = 1\n", "defines no property"),
    ("PROPERTIES = [42]\n", "is not a property"),
])
def test_a_properties_file_that_does_not_load_says_what_to_fix(tmp_path, text, message):
    path = tmp_path / "mine.py"
    path.write_text(text)
    with pytest.raises(UserError, match=message):
        load_properties_file(path)
    with pytest.raises(UserError, match="does not exist"):
        load_properties_file(tmp_path / "absent.py")


def test_build_model_takes_extra_properties():
    from isrcheck.explorer.registry import build_model

    model = build_model("classic", {"consumer_reads": "leader"}, extra_properties=load_properties_file(CONSUMER_READ))
    assert [p.name for p in model.properties()][-2:] == ["ConsumerReadsBelowLeaderHw", "ConsumerReadsBelowServerHw"]
