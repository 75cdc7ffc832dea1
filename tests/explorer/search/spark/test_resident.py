"""Small levels map the visited array a full level kept on the executors' machine (spark/resident.py),
and a partition that finds no such file makes the level run again through Spark, with the same results."""

from __future__ import annotations

import os

import numpy as np
import pytest
from isrcheck.explorer.search.spark import resident
from isrcheck.explorer.search.spark.store import Store

from tests.explorer.search.spark.helpers import compare
from tests.fixtures.models import Bits, Counters


def test_a_kept_array_reads_back_and_replaces_the_older_one(tmp_path):
    folder = str(tmp_path / "run")
    os.makedirs(folder)  # the driver's (folder_for)
    first = np.sort(np.frombuffer(os.urandom(16 * 50), dtype="S16"))
    resident.keep(folder, 3, 7, first.tobytes())
    assert resident.load(folder, 3, 7).tobytes() == first.tobytes()
    second = np.sort(np.frombuffer(os.urandom(16 * 60), dtype="S16"))
    resident.keep(folder, 3, 9, second.tobytes())
    assert resident.load(folder, 3, 7) is None  # replaced: no later job reads it
    assert resident.load(folder, 3, 9).tobytes() == second.tobytes()
    assert resident.load(folder, 4, 9) is None  # another partition's: not on this machine
    resident.keep(folder, 4, 9, b"")
    assert len(resident.load(folder, 4, 9)) == 0
    resident.drop(folder)
    assert not os.path.exists(folder)


def test_a_kept_array_that_cannot_be_written_is_left_out(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_bytes(b"")
    resident.keep(str(blocked / "run"), 0, 5, bytes(32))  # its folder cannot be made: no error
    assert resident.load(str(blocked / "run"), 0, 5) is None  # the level will run through Spark


def test_a_task_after_its_run_ended_leaves_nothing(tmp_path):
    # a task still running after the driver removed the run's folder (an executor's, after a loss)
    # must not make it again: tasks write into the driver's folder, never create it
    folder = str(tmp_path / "run")
    resident.keep(folder, 0, 5, bytes(32))
    assert not resident.keep_states(folder, 0, 5, bytes(16), b"M")
    assert not os.path.exists(folder)


def test_kept_states_read_back_and_only_the_two_newest_stay(tmp_path):
    from isrcheck.explorer.search.spark.blocks import encode_states

    folder = str(tmp_path / "run")
    os.makedirs(folder)
    fps, states = bytes(range(32)), encode_states([7, 8])
    for level in (4, 5, 6):
        assert resident.keep_states(folder, 1, level, fps, states)
    assert resident.load_states(folder, 1, 4) is None  # older than the level before the newest
    assert resident.load_states(folder, 1, 5) == resident.load_states(folder, 1, 6) == (fps, states)
    assert resident.load_states(folder, 0, 6) is None  # another partition's
    pickled = encode_states([Counters(1, 1)])  # not marshal: only Spark's copy holds such a block
    assert pickled[:1] != b"M" and not resident.keep_states(folder, 2, 6, b"", pickled)
    assert resident.load_states(folder, 2, 6) is None
    (tmp_path / "run" / "00003-00006.states").write_bytes(b"not a frontier")
    assert resident.load_states(folder, 3, 6) is None  # not one keep_states wrote: missing


def test_a_kept_states_file_whose_count_is_damaged_is_missing_without_a_big_allocation(tmp_path):
    # a header that says 2^32 - 1 fingerprints over a file of a few bytes: treated as missing (the
    # level runs again from Spark's copy), not a read that first allocates 64 GB (a MemoryError
    # that failed the task and, retried, the run)
    import tracemalloc

    from isrcheck.explorer.search.spark.blocks import _HEADER, FRONTIER_MAGIC

    folder = str(tmp_path)
    (tmp_path / "00000-00003.states").write_bytes(_HEADER.pack(FRONTIER_MAGIC, 2**32 - 1) + bytes(32) + b"M[")
    tracemalloc.start()
    try:
        assert resident.load_states(folder, 0, 3) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak


def _kept_folder_root():
    from pyspark import SparkFiles

    return os.path.join(SparkFiles.getRootDirectory(), resident.FOLDER)


@pytest.mark.spark
def test_small_levels_map_the_kept_arrays(spark):
    # 5**4 states in 17 levels: the last ones are small against the visited set, expanded on
    # executors and then in the driver; the violation's trace is walked back through them
    root = _kept_folder_root()
    before = set(os.listdir(root)) if os.path.isdir(root) else set()  # other runs of this session's
    _, result = compare(Counters(4, 5, bug_at=15), stop_at_first=False, driver_threshold=5, partitions=2)
    where = [lv["where"] for lv in result.stats["level_stats"]]
    assert where[-3:] == ["spark", "driver+spark", "driver+spark"]
    assert result.stats["levels_on_kept_arrays"] > 0
    assert result.stats["levels_expanded_from_files"] > 0
    assert result.stats["levels_run_again"] == 0
    after = set(os.listdir(root)) if os.path.isdir(root) else set()
    assert after <= before  # the run removed its folder (compare() runs Spark once)


@pytest.mark.spark
def test_a_missing_kept_array_runs_the_level_again(spark, monkeypatch):
    commit = Store._commit

    def elsewhere(self, *args, **kwargs):  # every kept array asked for is one no executor wrote
        rep = commit(self, *args, **kwargs)
        if self.kept_level is not None:
            self.kept_level += 1000
        return rep

    monkeypatch.setattr(Store, "_commit", elsewhere)
    _, result = compare(Counters(4, 5, bug_at=15), stop_at_first=False, driver_threshold=5, partitions=2)
    assert result.stats["levels_run_again"] == result.stats["levels_on_kept_arrays"] > 0


@pytest.mark.spark
def test_a_missing_states_file_runs_the_level_again(spark, monkeypatch):
    commit = Store._commit

    def elsewhere(self, *args, **kwargs):  # every kept states file asked for is one no task wrote
        rep = commit(self, *args, **kwargs)
        if self.states_level is not None:
            self.states_level += 1000
        return rep

    monkeypatch.setattr(Store, "_commit", elsewhere)
    # 4**3 states in 10 levels, six of them with a frontier left on executors; compare() asserts
    # the same counts, verdicts and traces as the local engine's
    _, result = compare(Counters(3, 4, bug_at=6), stop_at_first=False, driver_threshold=5, partitions=2)
    assert result.stats["levels_expanded_from_files"] > 0
    assert result.stats["levels_run_again"] == result.stats["levels_expanded_from_files"]


@pytest.mark.spark
def test_a_states_file_cut_short_runs_the_level_again(spark, monkeypatch):
    # a kept states file damaged after it was written whole (its states' block cut short) is missing
    # as a candidates file would be, not a task that fails on every retry and ends the run
    from isrcheck.explorer.search.spark import store

    expand_partition = store.expand_partition

    def cut_short(payload, transition, partitions, reports, kept=None, cands_to=None):
        inner = expand_partition(payload, transition, partitions, reports, kept, cands_to)

        def run(index, items):
            if kept is not None:
                path = resident._states_path(kept[0], index, kept[1])
                if os.path.exists(path):
                    os.truncate(path, os.path.getsize(path) - 3)
            return inner(index, items)

        return run

    monkeypatch.setattr(store, "expand_partition", cut_short)
    _, result = compare(Counters(3, 4, bug_at=6), stop_at_first=False, driver_threshold=5, partitions=2)
    assert result.stats["levels_expanded_from_files"] > 0
    assert result.stats["levels_run_again"] == result.stats["levels_expanded_from_files"]


@pytest.mark.spark
def test_full_levels_merge_kept_arrays_and_a_lost_one_is_rebuilt_from_sparks_copy(spark, monkeypatch):
    # Full levels read and write the visited set as kept files, so Spark's copy is an older level's
    # array and the parent records since (store._visited_source). Remove every kept array once,
    # two full levels after Spark's last array: the next level finds none, the visited set is
    # rebuilt from Spark's copy, and the run's results are the local engine's. Bits toggles back,
    # so that level's candidates include the states of the level two before it, which only the
    # rebuilt set's parent records hold: a rebuild that missed them would count them again.
    commit = Store._commit
    removed = []

    def lose_once(self, *args, **kwargs):
        rep = commit(self, *args, **kwargs)
        if not removed and self.full_level - self.base_level >= 2 and self.kept_level is not None:
            removed.extend(name for name in os.listdir(self.kept_folder) if name.endswith(".fps"))
            for name in removed:
                os.remove(os.path.join(self.kept_folder, name))
        return rep

    monkeypatch.setattr(Store, "_commit", lose_once)
    _, result = compare(Bits(8), stop_at_first=False, driver_threshold=5, partitions=2)
    assert removed
    assert result.stats["visited_rebuilt"] == 1
    assert result.stats["levels_run_again"] == 1
    assert result.stats["levels_on_kept_arrays"] > 1
