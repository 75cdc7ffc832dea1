"""A ``--lemmas FILE.py`` that fails is the user's bad input (exit 2), not a fault of the model (exit 4).

A lemma file is Python the user chose to run (docs/symbolic.md): when it fails to load (an
exception, a ``sys.exit``) or one of its lemmas raises or returns no formula, ``prove`` and ``bmc``
refuse the run naming the file, the lemma, the error and its line, without a traceback. Before,
a lemma that raised was reported as "the model failed" (exit 4) with its frames, and a
``sys.exit(3)`` in the file ended the run with status 3 and no message. 2 s.
"""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main

COMMANDS = {"prove": ["prove", "classic", "--generation", "kip320", "--replicas", "2", "--bounded"],
            "bmc": ["bmc", "classic", "--generation", "kip320", "--replicas", "2", "--depth", "3"]}


def run(capsys, command: str, path: str) -> tuple[int, str]:
    status = main([*COMMANDS[command], "--invariant", "LeaderInIsr", "--lemmas", path, "--quiet"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "the model failed" not in err, err
    return status, err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_lemma_that_raises_is_bad_input(tmp_path, capsys, command):
    lemmas = tmp_path / "mine.py"
    lemmas.write_text("def typo(ops, v):\n    return v.no_such_field\n\n\nLEMMAS = {'Typo': typo}\n")
    status, err = run(capsys, command, str(lemmas))
    assert status == 2, err
    assert f"lemma 'Typo' of lemma file '{lemmas}' raised AttributeError: " in err, err
    assert "no_such_field" in err and "(line 2: return v.no_such_field)" in err, err


@pytest.mark.parametrize(("source", "said"), [
    ("raise RuntimeError('half written')\n", "RuntimeError: half written (line 1: "),
    ("import sys\nsys.exit(3)\n", "SystemExit: 3 (line 2: sys.exit(3))"),
    ("def f(:\n", "SyntaxError: "),
], ids=["raises", "exits", "syntax"])
def test_a_lemma_file_that_fails_to_load_is_bad_input(tmp_path, capsys, source, said):
    lemmas = tmp_path / "mine.py"
    lemmas.write_text(source)
    status, err = run(capsys, "prove", str(lemmas))
    assert status == 2 and f"lemma file '{lemmas}' failed to load: {said}" in err, err


def test_a_lemma_that_returns_no_formula_is_bad_input(tmp_path, capsys):
    lemmas = tmp_path / "mine.py"
    lemmas.write_text("LEMMAS = {'Forgot': lambda ops, v: None}\n")
    status, err = run(capsys, "bmc", str(lemmas))
    assert status == 2 and "lemma 'Forgot' of lemma file" in err and "returned NoneType None, not a formula" in err, err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_lemma_that_exits_is_bad_input_not_a_violation(tmp_path, capsys, command):
    # sys.exit(1) inside a lemma ended the run with status 1, which means a violation (the load
    # was guarded against SystemExit, the call was not)
    lemmas = tmp_path / "mine.py"
    lemmas.write_text("import sys\n\n\ndef quits(ops, v):\n    sys.exit(1)\n\n\nLEMMAS = {'Quits': quits}\n")
    status, err = run(capsys, command, str(lemmas))
    assert status == 2, err
    assert f"lemma 'Quits' of lemma file '{lemmas}' raised SystemExit: 1 (line 5: sys.exit(1))" in err, err
