"""Trace files are data from anyone: showing or replaying one runs no code the file names, and a
damaged or hostile file is refused with exit 2, a message naming the problem and where, and no
traceback, by every command that reads traces."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from isrcheck.explorer.cli.main import main

from tests.fixtures.paths import ROOT

RACY = str(ROOT / "tests" / "fixtures" / "racy_lock.py")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def racy_trace(tmp_path, capsys) -> Path:
    path = tmp_path / "racy.itf.json"
    assert main(["check", RACY, "--quiet", "--trace-json", str(path)]) == 1
    capsys.readouterr()
    return path


@pytest.fixture
def hostile(tmp_path, racy_trace) -> tuple[Path, Path]:
    """A trace whose '#meta'.'model' names, beside it, a model file that leaves a marker file when
    it is imported (and would otherwise be a working model)."""
    marker = tmp_path / "imported-the-hostile-model"
    (tmp_path / "hostile.py").write_text(Path(RACY).read_text() +
                                         f"\nimport pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    data = json.loads(racy_trace.read_text())
    data["#meta"]["model"] = "hostile.py"
    racy_trace.write_text(json.dumps(data))
    return racy_trace, marker


def test_the_hostile_model_file_does_run_when_named_by_the_user(capsys, hostile, tmp_path):
    """The fixture's marker works: importing the file (a user's explicit --model) leaves it."""
    trace, marker = hostile
    code, out, _ = run(capsys, "replay", str(trace), "--model", str(tmp_path / "hostile.py"))
    assert code == 1 and marker.exists() and "given with --model" in out


def test_show_draws_a_trace_naming_a_hostile_model_without_running_it(capsys, hostile, tmp_path):
    trace, marker = hostile
    code, out, err = run(capsys, "show", str(trace))
    assert code == 0, err
    assert "State 3: Check(process=1)" in out and "pc.p1: idle -> checked" in out
    assert "MutualExclusion fails at state 5 (as recorded in the file, not replayed:" in out
    page = tmp_path / "page.html"
    assert run(capsys, "show", str(trace), "--html", str(page))[0] == 0
    assert page.exists() and "Check(process=1)" in page.read_text()
    assert not marker.exists()


def test_replay_refuses_a_model_file_named_by_the_trace_and_runs_the_one_named_by_the_user(capsys, hostile):
    trace, marker = hostile
    code, _, err = run(capsys, "replay", str(trace))
    assert code == 2 and "names the model file 'hostile.py'" in err and "runs no code a trace file names" in err
    assert "--model" in err and "Traceback" not in err
    code, out, _ = run(capsys, "replay", str(trace), "--model", RACY)
    assert code == 1 and f"Replaying against model {RACY} (given with --model; the trace names hostile.py)" in out
    assert "=> MutualExclusion fails at state 5" in out
    assert not marker.exists()


def test_replay_of_a_registered_model_says_which_model_it_runs(capsys, tmp_path):
    trace = tmp_path / "k1.itf.json"
    assert main(["scenario", "K1", "--quiet", "--trace-json", str(trace)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "replay", str(trace))
    assert code == 1 and out.startswith("Replaying against the registered model classic (named in the trace).")


# -- damaged and hostile files ------------------------------------------------------------------------

def _states_field(racy_trace: Path, value_text: str) -> str:
    """The trace's text with state 2's 'flag' field replaced by ``value_text`` (raw JSON)."""
    data = json.loads(racy_trace.read_text())
    data["states"][1]["flag"] = "@@"
    return json.dumps(data).replace('"@@"', value_text)


def _edited(racy_trace: Path, edit) -> str:
    data = json.loads(racy_trace.read_text())
    edit(data)
    return json.dumps(data)


CORRUPT = {
    "deeply nested": (lambda t: '{"#meta": {"model": "classic"}, "states": ' + "[" * 200_000 + "]" * 200_000 + "}",
                      "nested too deeply"),
    "deep inside a state": (lambda t: _states_field(t, '{"a": ' * 100 + "1" + "}" * 100),
                            "states[1].flag.a.a.a"),
    "5,000-digit number": (lambda t: _states_field(t, "9" * 5000), "a number of 5000 digits at line 1, column"),
    "5,000-digit bigint": (lambda t: _states_field(t, '{"#bigint": "' + "9" * 5000 + '"}'),
                           "states[1].flag.#bigint must be a string of at most 4300"),
    "options not an object": (lambda t: _edited(t, lambda d: d["#meta"].update(options=[1, 2])),
                              "'#meta'.'options' must be a JSON object, not list"),
    "options an empty list": (lambda t: _edited(t, lambda d: d["#meta"].update(options=[])),
                              "'#meta'.'options' must be a JSON object, not list"),
    "model not a string": (lambda t: _edited(t, lambda d: d["#meta"].update(model=7)),
                           "'#meta'.'model' must name the model (a string), not int"),
    "action a number": (lambda t: _edited(t, lambda d: d["states"][2]["#meta"].update(action=3)),
                        "states[2].#meta.action must be a string"),
    "property an object": (lambda t: _edited(t, lambda d: d["#meta"].update(property={"x": 1})),
                           "'#meta'.'property' must be a string, not dict"),
    "set not a list": (lambda t: _states_field(t, '{"#set": 3}'), "states[1].flag.#set must be a list"),
    "signals not an object": (lambda t: _edited(t, lambda d: d["states"][0]["#meta"].update(signals=[1])),
                              "states[0].#meta.signals must be a JSON object"),
    "loop a string": (lambda t: _edited(t, lambda d: d.update(loop="x")), "'loop' must be the index of one"),
    "NaN": (lambda t: _states_field(t, "NaN"), "NaN is not a JSON number"),
    "truncated": (lambda t: t.read_text()[: len(t.read_text()) // 2], "was it cut short?"),
}


@pytest.mark.parametrize("command", ["show", "replay"])
@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_a_damaged_trace_file_exits_2_naming_the_problem_and_where(capsys, racy_trace, command, case):
    make, message = CORRUPT[case]
    racy_trace.write_text(make(racy_trace))
    code, out, err = run(capsys, command, str(racy_trace), "--model", RACY)
    assert code == 2, err
    assert message in err and str(racy_trace) in err and "Traceback" not in err + out


@pytest.mark.parametrize("command", ["show", "replay"])
def test_a_trace_file_that_is_not_utf8_exits_2_with_the_byte(capsys, racy_trace, command):
    racy_trace.write_bytes(racy_trace.read_bytes()[:40] + b"\xff\xfe" + racy_trace.read_bytes()[40:])
    code, _, err = run(capsys, command, str(racy_trace))
    assert code == 2 and "is not UTF-8 text (byte 40 is 0xff)" in err and "Traceback" not in err


def test_a_truncated_file_names_the_line_and_column(capsys, racy_trace):
    text = racy_trace.read_text()
    racy_trace.write_text(text[:100])
    code, _, err = run(capsys, "show", str(racy_trace))
    assert code == 2 and re.search(r"at line 4, column \d+\); it ends before the JSON does: was it cut short", err)


def test_control_characters_in_a_trace_never_reach_the_terminal(capsys, racy_trace):
    """A hostile file must not drive the terminal with escape sequences (ESC ] ... sets a title, etc.)."""
    data = json.loads(racy_trace.read_text())
    data["states"][2]["#meta"]["action"] = "Check(process=1)\x1b]0;owned\x07"
    data["states"][2]["pc"] = {"p0": "idle\x1b[2J", "p1": "checked"}
    data["#meta"]["detail"] = "both\x1b[31m"
    racy_trace.write_text(json.dumps(data))
    code, out, err = run(capsys, "show", str(racy_trace))
    assert code == 0 and "\x1b" not in out + err and "\x07" not in out + err
    assert "Check(process=1)\\x1b]0;owned\\x07" in out and "idle\\x1b[2J" in out
    code, out, err = run(capsys, "replay", str(racy_trace), "--model", RACY)
    assert code == 3 and "\x1b" not in out + err and "Check(process=1)\\x1b]0;owned" in err
