"""Long runs: the progress line shows resident memory and its growth per level; a memory ceiling
stops the run cleanly with its statistics and exit status 5; bad numbers are refused with exit 2."""

from __future__ import annotations

import io

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.progress import Progress
from isrcheck.explorer.search.local import run_local
from isrcheck.explorer.search.memory import parse_size
from isrcheck.explorer.selection import select_properties

from tests.fixtures.models import Counters
from tests.fixtures.paths import DOCS

JUGS = str(DOCS / "examples" / "jugs.py") + ":make_model"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_progress_shows_resident_memory_and_its_growth_per_level():
    stream = io.StringIO()
    model = Counters(3, 12)
    run_local(model, select_properties(model), progress=Progress(stream=stream, interval=1e-9, live=False))
    lines = stream.getvalue().splitlines()
    assert any("| RSS " in ln for ln in lines)
    assert any("/level)" in ln for ln in lines)  # growth appears once two levels are done


def test_the_ceiling_stops_the_run_cleanly_with_its_statistics():
    reads = iter(range(1, 10**6))

    def fake_rss() -> int:  # 10 MiB more at every read: levels end, so reads happen every level
        return next(reads) * 10 * 2**20

    model = Counters(3, 12)
    result = run_local(model, select_properties(model), memory_limit=55 * 2**20, rss=fake_rss)
    assert result.limit == "memory" and not result.complete and not result.violations
    assert 1 < result.depth < 34 and result.distinct_states > 1 and result.generated_states >= result.distinct_states
    assert "passed the ceiling of 55.0 MiB" in result.limit_note
    assert all(hint in result.limit_note for hint in ("--symmetry", "--store fingerprint", "--engine spark"))


def test_the_cli_exits_5_at_the_ceiling_and_says_what_to_do(capsys):
    code, out, _ = run(capsys, "check", JUGS, "--max-memory", "1M")
    assert code == 5
    assert "Model checking stopped at the memory limit" in out and "distinct states found" in out
    assert "--max-memory changes the ceiling" in out


class _RunsOutOfMemory(Counters):
    def successors(self, state):
        if sum(state) == 3:
            raise MemoryError
        return super().successors(state)


def test_python_running_out_of_memory_is_the_same_clean_stop():
    model = _RunsOutOfMemory(2, 6)
    result = run_local(model, select_properties(model))
    assert result.limit == "memory" and "MemoryError" in result.limit_note and result.distinct_states > 1


@pytest.mark.parametrize("argv,message", [
    (["--progress-interval", "-1"], "must be a positive number"),
    (["--progress-interval", "0"], "must be a positive number"),
    (["--progress-interval", "nan"], "must be a positive number"),
    (["--progress-interval", "inf"], "must be a positive number"),
    (["--progress-interval", "soon"], "is not a number"),
    (["--max-memory", "lots"], "is not a size"),
    (["--max-memory", "0"], "is not a size"),
    (["--max-memory=-5G"], "is not a size"),
    (["--max-memory", "150%"], "percentage must be in (0, 100]"),
    (["--max-memory", "2G", "--engine", "spark"], "applies to the local engine"),
    (["--engine", "spark", "--partitions", "0"], "must be at least 1"),
    (["--engine", "spark", "--driver-threshold", "-1"], "must be 0 or more"),
    (["--max-depth", "-3"], "max_depth must be a positive integer"),
])
def test_bad_numbers_are_refused_with_exit_2(capsys, argv, message):
    code, _, err = run(capsys, "check", JUGS, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_sizes_parse():
    assert parse_size("512M") == 512 * 2**20 and parse_size("1.5g") == int(1.5 * 2**30)
    assert parse_size("4GiB") == 4 * 2**30 and parse_size("none") is None
