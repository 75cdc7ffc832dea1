"""On one machine a level's candidates go from its expansion to its merge through files
(spark/candfiles.py), the shuffle moving references only; a reference whose file is missing makes
the level run again through the shuffle, with the same results."""

from __future__ import annotations

import os

import pytest
from isrcheck.explorer.search.spark import candfiles, resident, store
from isrcheck.explorer.search.spark.blocks import encode_states
from isrcheck.explorer.search.spark.store import Store

from tests.explorer.search.spark.helpers import compare
from tests.fixtures.models import Counters


def _block(n: int, states: bytes | None = None) -> tuple[bytes, bytes, bytes, bytes]:
    return (os.urandom(16 * n), os.urandom(16 * n), os.urandom(4 * n),
            states if states is not None else encode_states(list(range(n))))


def test_a_candidates_file_reads_back_whole(tmp_path):
    folder = str(tmp_path)
    blk = _block(5)
    n, size = candfiles.write(folder, 7, 1, 3, blk)
    assert n == 5 and size == os.path.getsize(candfiles.path_of(folder, 7, 1, 3))
    assert candfiles.read(folder, 7, 1, 3, n, size) == blk
    empty = _block(0)
    assert candfiles.read(folder, 7, 0, 3, *candfiles.write(folder, 7, 0, 3, empty)) == empty
    # written again (a task Spark runs twice): the same name, the same bytes, no temporary left
    assert candfiles.write(folder, 7, 1, 3, blk) == (n, size)
    assert sorted(os.listdir(folder)) == ["c00007-00000-00003.cands", "c00007-00001-00003.cands"]


def test_a_reference_whose_file_is_not_the_one_it_names_reads_as_missing(tmp_path):
    folder = str(tmp_path)
    n, size = candfiles.write(folder, 2, 0, 1, _block(4))
    assert candfiles.read(folder, 2, 0, 0, n, size) is None  # another destination's: no such file
    assert candfiles.read(folder, 2, 0, 1, n, size + 1) is None  # another size
    assert candfiles.read(folder, 2, 0, 1, n + 1, size) is None  # another count
    path = candfiles.path_of(folder, 2, 0, 1)
    with open(path, "r+b") as fh:
        fh.write(b"NOTCANDS")
    assert candfiles.read(folder, 2, 0, 1, n, size) is None  # not one ``write`` wrote


def test_a_pickled_block_and_an_unwritable_file_stay_in_spark(tmp_path):
    pickled = encode_states([Counters(1, 1)])  # not marshal: a data file never holds a pickle
    assert pickled[:1] != b"M"
    assert candfiles.write(str(tmp_path), 1, 0, 0, _block(1, pickled)) is None
    assert os.listdir(tmp_path) == []
    gone = str(tmp_path / "run")  # the run's folder removed (the run ended): tasks never create it
    assert candfiles.write(gone, 1, 0, 0, _block(2)) is None
    assert not os.path.exists(gone)


def test_dropping_a_level_leaves_the_others(tmp_path):
    folder = str(tmp_path)
    for level in (3, 4):
        candfiles.write(folder, level, 0, 1, _block(2))
    (tmp_path / "c00003-00001-00000.cands.tmp99").write_bytes(b"")  # a killed task's temporary
    (tmp_path / "00000-00003.fps").write_bytes(b"")  # a kept array (``resident``): not a candidate file
    candfiles.drop_level(folder, 3)
    assert sorted(os.listdir(folder)) == ["00000-00003.fps", "c00004-00000-00001.cands"]
    candfiles.drop_level(None, 4)  # no kept folder (a cluster): nothing to do


def _no_candidate_files_after_each_level(monkeypatch, seen: list[int]):
    commit = Store._commit

    def check(self, *args, **kwargs):
        left = [n for n in os.listdir(self.kept_folder) if n.startswith("c")]
        assert left == [], f"candidate files left after their level: {left}"
        seen.append(len(left))
        return commit(self, *args, **kwargs)

    monkeypatch.setattr(Store, "_commit", check)


def _kept_root() -> str:
    from pyspark import SparkFiles

    return os.path.join(SparkFiles.getRootDirectory(), resident.FOLDER)


@pytest.mark.spark
def test_candidates_through_files_give_the_local_engines_results(spark, monkeypatch):
    root = _kept_root()
    before = set(os.listdir(root)) if os.path.isdir(root) else set()  # other runs of this session's
    levels: list[int] = []
    _no_candidate_files_after_each_level(monkeypatch, levels)
    # 5**4 states in 17 levels; compare() asserts the same counts, depth, verdicts and traces
    _, result = compare(Counters(4, 5, bug_at=15), stop_at_first=False, driver_threshold=5, partitions=2)
    assert result.stats["levels_with_candidate_files"] > 5
    assert result.stats["levels_run_again"] == 0
    assert levels
    after = set(os.listdir(root)) if os.path.isdir(root) else set()
    assert after <= before  # the run removed its folder, candidate files and all


@pytest.mark.spark
def test_missing_candidate_files_run_the_level_again(spark, monkeypatch, tmp_path):
    # The merges of one level look for its candidate files where no task wrote them (another machine,
    # or files removed under it): each reports ``missing`` and writes nothing, and the level runs again
    # with its candidates through the shuffle. A fallback that read files again, or one that merged
    # without the missing blocks, would give other counts or traces than the local engine's.
    merge_partition = store.merge_partition
    elsewhere = str(tmp_path / "another-machine")
    lost: list[int] = []

    def lose_one_level(payload, level, *args, cands_from=None, **kwargs):
        if cands_from is not None and (not lost or lost[0] == level):
            lost[:1] = [level]
            cands_from = elsewhere
        return merge_partition(payload, level, *args, cands_from=cands_from, **kwargs)

    monkeypatch.setattr(store, "merge_partition", lose_one_level)
    _no_candidate_files_after_each_level(monkeypatch, [])
    _, result = compare(Counters(4, 5, bug_at=15), stop_at_first=False, driver_threshold=5, partitions=2)
    assert lost
    assert result.stats["levels_run_again"] == 1
    assert result.stats["levels_with_candidate_files"] > 5
