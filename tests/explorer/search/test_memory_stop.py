"""The stop at the memory ceiling: with one process and with workers, it allocates nothing large
(the visited sets are not merged, the frontier is dropped) and ``--json`` carries the limit's note
and the frontier left unexpanded."""

from __future__ import annotations

import json

import pytest
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.search.parallel import engine as parallel
from isrcheck.explorer.search.parallel import run_parallel
from isrcheck.explorer.selection import select_properties

from tests.fixtures.models import Counters


@pytest.mark.parametrize("workers", ["1", "2"])
def test_json_carries_the_limit_note_and_the_frontier_left(capsys, workers):
    code = main(["check", "classic", "--workers", workers, "--max-memory", "1M", "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 5, err
    summary = json.loads(out)
    assert summary["limit"] == "memory" and not summary["complete"]
    assert summary["limit_note"].startswith("Stopped at the memory limit: resident memory")
    assert "--max-memory changes the ceiling" in summary["limit_note"]
    assert summary["frontier_left"] > 0 and summary["frontier_left"] == summary["stats"]["frontier_left"]
    assert f"while expanding the {summary['frontier_left']:,} states" in summary["limit_note"]


def test_a_complete_run_has_no_limit_note_and_no_frontier_left(capsys):
    assert main(["check", "classic", "--workers", "1", "--json", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["limit"] is None and summary["limit_note"] is None and summary["frontier_left"] == 0


def test_the_stop_with_workers_merges_no_visited_set(monkeypatch):
    """The workers fork (a small inline threshold), the ceiling is passed mid-run, and from then on
    no visited set is merged into another (what used to add a third to the peak at the stop)."""
    stopped = []
    check_memory, absorb = parallel._Run.check_memory, parallel._Run.absorb

    def watched_check(self):
        try:
            check_memory(self)
        except parallel._MemoryCeiling:
            stopped.append(self.depth)
            raise

    def watched_absorb(self):
        assert not stopped, "a visited set was merged after the memory ceiling was passed"
        absorb(self)

    monkeypatch.setattr(parallel._Run, "check_memory", watched_check)
    monkeypatch.setattr(parallel._Run, "absorb", watched_absorb)
    reads = iter(range(1, 10**6))
    model = Counters(3, 12)
    result = run_parallel(model, select_properties(model), workers=2, inline_below=8,
                          memory_limit=40 * 2**20, rss=lambda: next(reads) * 10 * 2**20)
    assert stopped and result.limit == "memory" and not result.complete
    assert result.stats["workers"] == 2 and result.stats["parallel_seconds"] > 0  # the workers did run
    assert result.stats["frontier_left"] > 0 and f"{result.stats['frontier_left']:,} states" in result.limit_note
    assert result.depth == stopped[0] and result.distinct_states > 1
