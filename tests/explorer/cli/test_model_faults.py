"""A model that raises is a fault in the model (exit 4), not a violation (exit 1): the report names
what raised, shows the model's own frames, the state being expanded and the action being taken."""

from __future__ import annotations

import pytest
from isrcheck.explorer.cli.main import main

from tests.fixtures.paths import FIXTURES

FAULTY = str(FIXTURES / "faulty.py")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("where,what,state", [
    ("factory", "the model factory make_model()", None),
    ("init_states", "init_states()", None),
    ("successors", "successors(state)", "State being expanded: (3,)"),
    ("predicate", "the predicate of property BelowSeven", "Successor it led to: (4,)"),
    ("canonical", "canonical(state)", "Successor it led to: (5,)"),
    ("within_bounds", "within_bounds(state)", "State being expanded: (4,)"),
    ("state_view", "the model's state_view()", None),
    ("signals", "the model's signals()", None),
])
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_raising_model_exits_4_with_its_own_frames(capsys, where, what, state, workers):
    code, _, err = run(capsys, "check", FAULTY, "--where", where, "--symmetry", "--quiet", "--workers", workers)
    assert code == 4, err
    assert f"the model failed: {what} raised RuntimeError: planted fault in" in err
    assert 'faulty.py", line' in err and ("in _maybe" in err or where == "factory")  # the model's frames ...
    assert "explorer/" not in err and "Traceback" not in err  # ... and none of the checker's
    if state:
        assert state in err


def test_a_fault_in_successors_names_the_behaviour_that_led_there(capsys):
    _, _, err = run(capsys, "check", FAULTY, "--where", "successors", "--quiet")
    behaviour = err[err.index("The behaviour up to the state being expanded:"):]
    assert "State 1: initial state" in behaviour and "height: 1 -> 3" in behaviour


def test_the_same_model_without_a_fault_is_a_violation_not_a_fault(capsys):
    code, out, _ = run(capsys, "check", FAULTY, "--symmetry", "--quiet")
    assert code == 1 and "BelowSeven (invariant) violated" in out


def test_a_fault_during_replay_is_a_model_fault(capsys, tmp_path):
    trace = tmp_path / "t.itf.json"
    assert run(capsys, "check", FAULTY, "--trace-json", str(trace), "--quiet")[0] == 1
    text = trace.read_text().replace('"where": "none"', '"where": "successors"')
    trace.write_text(text)
    code, _, err = run(capsys, "replay", str(trace), "--model", FAULTY)
    assert code == 4 and "planted fault in successors" in err and "Traceback" not in err


def test_replay_of_a_folder_is_bad_input(capsys, tmp_path):
    code, _, err = run(capsys, "replay", str(tmp_path))
    assert code == 2 and "is a folder" in err and "Traceback" not in err


def test_a_crash_of_isrcheck_itself_exits_6_never_1(monkeypatch, capsys):
    """Python's status for an uncaught exception is 1, the status of a violation; an internal error
    (or a lost worker or executor surfacing as one) must not be read as a protocol bug."""
    import isrcheck.explorer.cli.main as cli

    # A function whose frames are isrcheck's own (compiled under the engine's file name), so it is
    # not taken for the model's code (exit 4) but for a fault of isrcheck.
    namespace: dict = {}
    exec(compile("def broken(argv):\n    raise RuntimeError('an executor was lost')\n", cli.__file__, "exec"),
         namespace)
    broken = namespace["broken"]
    monkeypatch.setattr(cli, "_command", lambda name: broken)
    assert cli.main(["check", "classic"]) == cli.EXIT_INTERNAL == 6
    err = capsys.readouterr().err
    assert "RuntimeError: an executor was lost" in err
    assert "isrcheck itself failed" in err and "exit status 6" in err


def test_a_lost_worker_exits_6_with_its_message_and_no_traceback(monkeypatch, capsys):
    import isrcheck.explorer.cli.main as cli
    from isrcheck.explorer.search.parallel.pool import WorkerDied

    def lost(argv):
        raise WorkerDied("a parallel worker died (killed by the system, perhaps out of memory)")

    monkeypatch.setattr(cli, "_command", lambda name: lost)
    assert cli.main(["check", "classic"]) == cli.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "a parallel worker died" in err and "exit status 6" in err
    assert "Traceback" not in err
