"""Issue 29, "One command line": names refused with the known ones, no abbreviations, one spelling
for one idea across commands, model options with their help, and the same wording on every engine."""

from __future__ import annotations

import argparse

import pytest
from isrcheck.explorer.cli import main as cli_main
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model

import isrcheck
from tests.fixtures.paths import ROOT

MUTEX = str(ROOT / "docs" / "examples" / "mutex.py")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_without_a_model_is_bad_input(capsys):
    code, out, err = run(capsys, "check")
    assert code == 2 and out == ""
    assert "MODEL is missing" in err and "isrcheck models" in err


@pytest.mark.parametrize("command", ["check", "simulate", "bmc", "prove", "properties"])
def test_an_abbreviated_model_option_is_refused_with_the_full_name(capsys, command):
    depth = ["--depth", "2"] if command == "bmc" else []
    code, _, err = run(capsys, command, "classic", "--replica", "3", *depth)
    assert code == 2
    assert "unrecognised argument(s) --replica 3" in err and "did you mean --replicas?" in err


def test_an_abbreviated_command_option_is_refused(capsys):
    code, _, err = run(capsys, "scenario", "K1", "--trace", "x.json")
    assert code == 2 and "--trace" in err
    code, _, err = run(capsys, "check", "classic", "--work", "1")
    assert code == 2 and "did you mean --workers?" in err


@pytest.mark.parametrize("argv", [
    ["check", "classic", "--sym"], ["simulate", "classic", "--behav", "2"],
    ["bmc", "classic", "--depth", "2", "--incr"], ["prove", "classic", "--hou"], ["scenarios", "--js"],
    ["scenario", "K1", "--ful"], ["replay", "t.json", "--ful"],
    ["show", "t.json", "--ful"], ["properties", "classic", "--gen", "kip101"], ["models", "--h"],
])
def test_every_command_refuses_an_abbreviated_option(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and "Traceback" not in err, err
    assert argv[-1] in err or argv[-2] in err


def test_depth_is_one_option_spelled_either_way_on_check_bmc_and_simulate(capsys):
    for spelling in ("--depth", "--max-depth"):
        code, out, _ = run(capsys, "check", "classic", spelling, "3", "--quiet", "--workers", "1")
        assert code == 0 and "stopped at depth 3" in out
        code, out, _ = run(capsys, "simulate", "classic", spelling, "4", "--behaviours", "2", "--quiet")
        assert code == 0 and "at most 4 states each" in out


def test_simulate_accepts_quiet(capsys):
    code, out, err = run(capsys, "simulate", "classic", "--depth", "3", "--behaviours", "1", "--quiet")
    assert code == 0 and "Simulation finished" in out and err == ""


def test_a_misspelled_fairness_family_is_refused_on_the_command_line(capsys):
    code, out, err = run(capsys, "check", MUTEX, "--fairness", "take=weak,release=weak,entr=weak", "--quiet")
    assert code == 2 and "Liveness" not in out
    assert "unknown action family 'entr'" in err and "did you mean enter?" in err
    assert "take, release, enter" in err


def test_a_misspelled_fairness_family_is_refused_in_python():
    model = build_model(MUTEX)
    with pytest.raises(isrcheck.UserError, match="unknown action family 'Hartbeat'.*take, release, enter"):
        isrcheck.check(model, fairness={"Hartbeat": "weak"})
    # the correct spelling is accepted (and is the documented false-starvation run: exit 1's verdict)
    result = isrcheck.check(model, fairness={"take": "weak", "release": "weak", "enter": "weak"})
    assert result.violations


def test_a_fairness_family_of_the_classic_model_is_checked_against_its_per_broker_names():
    model = build_model("classic", {"max_crashes": 1})
    with pytest.raises(isrcheck.UserError, match="'FollowerReplicate' .*FollowerReplicate r1"):
        isrcheck.check(model, properties=["LeaderEventuallyElected"], fairness={"FollowerReplicate": "weak"})


def test_parsers_are_built_without_abbreviation_even_when_asked():
    assert not cli_main._Parser(prog="x", allow_abbrev=True).allow_abbrev
    assert isinstance(cli_main._Parser(prog="x"), argparse.ArgumentParser)


@pytest.mark.parametrize("page", ["consumers.md", "durability.md"])
def test_the_pages_do_not_say_elr_is_unmodelled_while_the_kraft_generation_models_it(page):
    import re

    text = " ".join((ROOT / "docs" / page).read_text().split())
    assert not re.search(r"(ELR|Eligible Leader Replicas)[^.]{0,60} (is|are) not modelled", text)
    assert "kraft-kip966" in text


# -- model options: help, defaults, the renamed --invariants --------------------------------------------


def test_models_lists_each_option_with_its_help_and_default(capsys):
    code, out, _ = run(capsys, "models")
    assert code == 0
    assert "    --acks {none,0,1,all}  (default: none)\n        producer acks: none" in out
    assert "    --split-fetch / --no-split-fetch  (default: off)\n        a fetch as the spec's three steps" in out
    assert "    --hw-over-maximal-isr / --no-hw-over-maximal-isr  (default: on)" in out
    assert "    --max-az-failures INT  (default: 0)\n        power failures of a whole zone." in out


def test_check_model_help_shows_the_factory_docstring_and_boolean_defaults(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["check", "classic", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert exit_.value.code == 0
    assert "--replicas REPLICAS the spec's Replicas: how many brokers replicate the partition. (default: 2)" in out
    assert "maximal ISR off). (default: on)" in out and "(KIP-392 follower fetching). (default: off)" in out


def test_option_help_reads_one_entry_per_name_and_its_continuation_lines():
    from isrcheck.explorer.registry import option_help

    def make(*, a: int = 1, b: bool = False, c: str = "x", d: int = 0):
        """A factory.

        a: the first.
        b, c: shared text that goes
            on here.
        d: one; not a new entry: nothing.
        Not part of d.
        """

    assert option_help(make) == {"a": "the first.", "b": "shared text that goes on here.",
                                 "c": "shared text that goes on here.", "d": "one; not a new entry: nothing."}


@pytest.mark.parametrize("argv", [["--invariants", "all"], ["--invariants=WeakIsr"]])
def test_the_old_invariants_option_is_refused_with_its_new_name(capsys, argv):
    code, out, err = run(capsys, "check", "classic", *argv, "--quiet")
    assert code == 2 and out == ""
    assert "--invariants" in err and "is now property_set (--property-set)" in err and "--invariant NAME" in err


def test_the_old_invariants_option_is_refused_in_python_and_in_trace_files():
    with pytest.raises(isrcheck.UserError, match=r"is now property_set \(--property-set\)"):
        build_model("classic", {"invariants": "all"})
    model = build_model("classic", {"property_set": "WeakIsr"})
    assert [p.name for p in model.properties()] == ["WeakIsr"]


# -- which option adds a property --------------------------------------------------------------------


@pytest.mark.parametrize("options, name, words", [
    ({}, "AckedRecordNotLost", "--acks 0, 1 or all adds AckedRecordNotLost"),
    ({}, "ConsistentRead", "--consumer-reads leader or any adds ConsistentRead"),
    ({}, "BrokerStoppedAndBack", "--max-crashes 1"),
    ({}, "LeaderCompleteness", "a property of the KRaft generations"),
    ({"property_set": "WeakIsr"}, "StrongIsr", "--property-set 'WeakIsr' leaves StrongIsr out"),
    ({"generation": "kraft-3.5"}, "ElrNonEmpty", "add --generation kraft-kip966"),
    ({"generation": "kraft-3.5"}, "StrongIsr", "a property of the ZooKeeper-era generations"),
    ({"generation": "kraft-kip966"}, "BrokerBackFromUncleanShutdown", "add --max-crashes 1"),
])
def test_an_unknown_property_says_which_option_adds_it(options, name, words):
    model = build_model("classic", options)
    with pytest.raises(isrcheck.UserError) as info:
        isrcheck.check(model, properties=[name])
    assert f"unknown property {name!r}" in str(info.value) and words in str(info.value)
    assert "this model has:" in str(info.value)


def test_the_hint_names_an_option_that_really_adds_the_property():
    # derived, not written by hand: the option the hint names makes the property exist
    assert "AckedRecordNotLost" in [p.name for p in build_model("classic", {"acks": "1"}).properties()]
    assert "ConsistentRead" in [p.name for p in build_model("classic", {"consumer_reads": "leader"}).properties()]


def test_an_unknown_property_on_the_command_line_names_the_option(capsys):
    code, _, err = run(capsys, "check", "classic", "--invariant", "AckedRecordNotLost", "--quiet")
    assert code == 2 and "--acks 0, 1 or all adds AckedRecordNotLost" in err


def test_a_name_no_generation_knows_gets_no_hint():
    with pytest.raises(isrcheck.UserError) as info:
        isrcheck.check(build_model("classic"), properties=["Nope"])
    assert str(info.value).startswith("unknown property 'Nope'; this model has:")


# -- defaults that make sense for each family ---------------------------------------------------------


@pytest.mark.parametrize("generation", ["kraft-3.5", "kraft-kip966"])
def test_a_kraft_run_with_the_defaults_is_not_vacuous(generation):
    result = isrcheck.check(build_model("classic", {"generation": generation}), workers=1)
    assert result.complete and not result.violations and result.vacuous == []
    assert "NewLeaderElected" in result.examples
    assert build_model("classic", {"generation": generation}).config.min_isr == 2


def test_the_kraft_defaults_leave_the_zookeeper_generations_alone():
    result = isrcheck.check(build_model("classic"), workers=1)
    assert (result.distinct_states, result.depth) == (5973, 18)  # TLC's count (tests/model/test_classic_parity.py)
    with pytest.raises(isrcheck.UserError, match=r"max_fencings applies to the KRaft generations \(kraft-3.5, kraft"):
        build_model("classic", {"max_fencings": 1})
    # an explicit value still wins over the family's default
    assert build_model("classic", {"generation": "kraft-3.5", "min_insync_replicas": 1}).config.min_isr == 1


def test_scenario_writes_a_regression_that_passes_while_the_bug_reproduces(capsys, tmp_path):
    import os
    import subprocess
    import sys

    regression = tmp_path / "test_k1_regression.py"
    code, out, _ = run(capsys, "scenario", "K1", "--quiet", "--regression", str(regression))
    assert code == 0 and f"Wrote {regression}" in out
    source = regression.read_text()
    assert "PROPERTY = 'StrongIsr'" in source and "'generation': 'truncate-to-hw'" in source
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(regression)],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_scenario_checks_the_regression_path_before_the_run(capsys, tmp_path):
    code, out, err = run(capsys, "scenario", "K1", "--quiet", "--regression", str(tmp_path / "no" / "such" / "t.py"))
    assert code == 2 and "--regression" in err and "StrongIsr" not in out


# -- the audit: every option that takes a name refuses an unknown one with the known ones -------------


@pytest.mark.parametrize("argv, words", [
    (["check", "clasic"], ["unknown model 'clasic'", "classic"]),
    (["scenario", "K99"], ["unknown scenario 'K99'", "K1"]),
    (["check", "classic", "--invariant", "StrongIrs"], ["unknown property 'StrongIrs'", "StrongIsr"]),
    (["simulate", "classic", "--invariant", "StrongIrs"], ["unknown property 'StrongIrs'", "StrongIsr"]),
    (["bmc", "classic", "--depth", "2", "--invariant", "StrongIrs"], ["no invariant StrongIrs", "StrongIsr"]),
    (["prove", "classic", "--lemma", "Nope"], ["no built-in lemma 'Nope'"]),
    (["check", "classic", "--generation", "kip32"], ["invalid choice: 'kip32'", "kraft-kip966"]),
    (["check", "classic", "--engine", "sprak"], ["invalid choice: 'sprak'", "spark"]),
    (["check", "classic", "--store", "exakt"], ["invalid choice: 'exakt'", "fingerprint"]),
    (["check", MUTEX, "--fairness", "enter=strnog"], ["weak|strong"]),
])
def test_every_name_option_refuses_an_unknown_name_with_the_known_ones(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert code == 2 and "Traceback" not in err
    for word in words:
        assert word in err


@pytest.mark.parametrize("call, words", [
    (lambda: isrcheck.check(build_model("classic"), max_dept=3), ["unknown option(s) max_dept", "max_depth"]),
    (lambda: isrcheck.check(build_model("classic"), engine="sprak"), ["unknown engine 'sprak'", "spark"]),
    (lambda: isrcheck.check(build_model("classic"), store="exakt"), ["unknown store 'exakt'", "fingerprint"]),
    (lambda: build_model("classic", {"generation": "kip32"}), ["'kip32' is unknown", "kip320", "kraft-kip966"]),
    (lambda: build_model("classic", {"replica": 3}), ["has no option replica", "replicas"]),
    (lambda: build_model("classic", {"acks": "2"}), ["'2' is unknown", "none, 0, 1, all"]),
])
def test_the_python_api_refuses_unknown_names_with_the_known_ones(call, words):
    with pytest.raises(isrcheck.UserError) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_property_set_and_the_property_option_live_side_by_side(capsys):
    code, out, _ = run(capsys, "check", "classic", "--property-set=WeakIsr,RecordCommitted", "--property", "WeakIsr",
                       "--quiet", "--workers", "1")
    assert code == 0 and "5,973 distinct states" in out and "Reached" not in out  # only WeakIsr was checked
    code, out, _ = run(capsys, "properties", "classic", "--property-set", "WeakIsr,RecordCommitted")
    assert code == 0 and out.startswith("WeakIsr  [always]\n") and "StrongIsr" not in out


def test_fairness_without_a_liveness_property_is_refused_not_ignored(capsys):
    code, _, err = run(capsys, "check", "classic", "--fairness", "Hartbeat=weak", "--quiet")
    assert code == 2 and "checks none" in err and "LeaderEventuallyElected" in err
    with pytest.raises(isrcheck.UserError, match="checks none"):
        isrcheck.check(build_model("classic"), fairness={})
