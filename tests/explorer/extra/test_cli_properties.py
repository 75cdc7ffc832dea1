"""``--properties FILE`` on the command line: selected, listed, written into trace and regression
files, and every bad input refused with exit 2 and the fix."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from isrcheck.explorer.cli.main import EXIT_OK, EXIT_USAGE, EXIT_VIOLATION, main

from tests.fixtures.paths import ROOT

CONSUMER_READ = ROOT / "docs" / "examples" / "consumer_read.py"
CHECK = ["check", "classic", "--consumer-reads", "leader", "--workers", "1", "--quiet"]


def test_the_files_properties_are_listed_and_selectable(capsys):
    assert main(["properties", "classic", "--consumer-reads", "leader", "--properties", str(CONSUMER_READ)]) == EXIT_OK
    listed = capsys.readouterr().out
    assert "ConsumerReadsBelowLeaderHw  [transition]" in listed
    assert "A consumer never reads at or beyond the HW of the replica that serves the read." in listed
    assert main([*CHECK, "--properties", str(CONSUMER_READ), "--property", "ConsumerReadsBelowServerHw"]) == EXIT_OK
    assert main([*CHECK, "--properties", str(CONSUMER_READ), "--invariant", "ConsumerReadsBelowLeaderHw"]) \
        == EXIT_VIOLATION
    assert "ConsumerReadsBelowLeaderHw (transition property) violated in a trace of 9 states" in capsys.readouterr().out


def test_trace_and_regression_files_carry_the_properties_file(tmp_path, capsys):
    shutil.copy(CONSUMER_READ, tmp_path / "consumer_read.py")
    (tmp_path / "out").mkdir()
    status = main([*CHECK, "--properties", str(tmp_path / "consumer_read.py"), "--property",
                   "ConsumerReadsBelowLeaderHw", "--trace-json", str(tmp_path / "out" / "cex.itf.json"),
                   "--regression", str(tmp_path / "out" / "test_cex.py")])
    assert status == EXIT_VIOLATION
    meta = json.loads((tmp_path / "out" / "cex.itf.json").read_text())["#meta"]
    assert meta["properties_file"] == "../consumer_read.py"
    capsys.readouterr()
    # The trace names the file, but a trace never runs code on its own word: the user names it.
    assert main(["replay", str(tmp_path / "out" / "cex.itf.json")]) == 2
    assert "--properties '../consumer_read.py'" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "out" / "cex.itf.json"), "--properties",
                 str(tmp_path / "consumer_read.py")]) == EXIT_VIOLATION  # the property is back
    assert "ConsumerReadsBelowLeaderHw fails at state 9" in capsys.readouterr().out
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_cex.py"],
                          cwd=tmp_path / "out", capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr
    # Asserted fixed while the bug is there: the failure is the rendered trace with its files.
    pinned = tmp_path / "out" / "test_cex.py"
    pinned.write_text(pinned.read_text().replace('EXPECT = "violated"', 'EXPECT = "fixed"'))
    back = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_cex.py",
                           "--isrcheck-artifacts", "art"], cwd=tmp_path / "out", capture_output=True, text=True,
                          timeout=300)
    assert back.returncode == 1 and "State 9: ConsumerFetch(replica=1, offset=0, record_id=0)" in back.stdout
    assert "the bug is back" in back.stdout
    itf = re.search(r"ITF trace: (\S+\.itf\.json)", back.stdout).group(1)
    assert len(json.loads(open(itf).read())["states"]) == 9 and itf.startswith(str(tmp_path / "out" / "art"))


@pytest.mark.parametrize(("text", "options", "message"), [
    ("import no_such_module_here\n", [], "failed to load: ModuleNotFoundError: No module named 'no_such_module_here'"),
    ("from isrcheck import invariant\n\n@invariant\ndef StrongIsr(s):\n    return True\n", [],
     "property 'StrongIsr' in .*mine.py has the name of the model's own property; rename it"),
    ("from isrcheck import invariant\n\n@invariant\ndef Reads(s):\n    return None not in s.served.values()\n",
     [], "property 'Reads' in .*it reads served .* added by --consumer-reads leader or any"),
    ("from isrcheck import invariant\n\n@invariant\ndef Acked(s):\n    return len(s.acked_records) < 9\n",
     ["--consumer-reads", "leader"], "added by --acks 0, 1 or all"),
])
def test_bad_properties_files_exit_2_with_the_fix(tmp_path, capsys, text, options, message):
    (tmp_path / "mine.py").write_text(text)
    assert main(["check", "classic", *options, "--properties", str(tmp_path / "mine.py")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert re.search(message, err), err


def test_an_unknown_name_is_refused_with_the_files_names_in_the_list(capsys):
    status = main([*CHECK, "--properties", str(CONSUMER_READ), "--property", "ConsumerReads"])
    assert status == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown property 'ConsumerReads'" in err and "ConsumerReadsBelowServerHw" in err
