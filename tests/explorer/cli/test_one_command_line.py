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


def test_every_parser_of_the_command_line_refuses_abbreviations():
    parsers = [cli_main._check_parser(), cli_main.model_parser("classic", [], "isrcheck check")]
    assert all(not p.allow_abbrev for p in parsers)
    assert isinstance(parsers[0], cli_main._Parser)


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
