"""The engine on local-cluster[2,1,1024]: two executors in their own JVMs and Python workers, as on a
real cluster. A model defined in a user's file (not importable on executors) is shipped to them."""

from __future__ import annotations

import textwrap

import pytest
from isrcheck.explorer.registry import load_factory

from isrcheck import check
from tests.explorer.search.spark.helpers import compare
from tests.fixtures.models import Bits, Counters

# Separate executor JVMs take 10-30 s to start: CI runs these, the fast loop does not.
pytestmark = [pytest.mark.spark, pytest.mark.slow]

USER_MODEL = '''
from typing import NamedTuple

from isrcheck import Property
class Pair(NamedTuple):
    """A state class defined only in this file: executors must import the file to unpickle it."""
    left: int
    right: int


class Walk:
    def __init__(self, size):
        self.size = size

    def init_states(self):
        return [Pair(0, 0)]

    def successors(self, state):
        if state.left + 1 < self.size:
            yield "left", Pair(state.left + 1, state.right)
        if state.right + 1 < self.size:
            yield "right", Pair(state.left, state.right + 1)

    def properties(self):
        return [Property.always("NotCorner", lambda s: (s.left, s.right) != (self.size - 1, self.size - 2)),
                Property.sometimes("Diagonal", lambda s: s.left == s.right == self.size - 1)]


def make_model(*, size: int = 6):
    return Walk(size)
'''


def test_user_model_file_runs_on_separate_executors(spark_cluster, tmp_path):
    path = tmp_path / "walk_model.py"
    path.write_text(textwrap.dedent(USER_MODEL))
    model = load_factory(f"{path}:make_model")(size=7)
    assert type(model).__module__ == "isrcheck_user_model_walk_model"
    local, spark = compare(model, stop_at_first=False, driver_threshold=0, partitions=3)
    assert spark.stats["master"].startswith("local-cluster")
    assert spark.distinct_states == 49
    assert [len(v.trace) for v in spark.violations] == [12]


@pytest.mark.parametrize("make, options", [
    (lambda: Counters(3, 4, bug_at=5), {"stop_at_first": False}),
    (lambda: Bits(4), {"symmetry": True, "stop_at_first": False}),
])
def test_fixtures_match_local_on_a_cluster(spark_cluster, make, options):
    compare(make(), driver_threshold=0, partitions=4, **options)


def test_checkpoint_resume_on_a_cluster(spark_cluster, tmp_path):
    model = Counters(3, 4, bug_at=6)
    whole = check(model, engine="spark", driver_threshold=0, stop_at_first=False)
    check(model, engine="spark", checkpoint=str(tmp_path), driver_threshold=0, stop_at_first=False,
          interrupt_after_level=4)
    resumed = check(model, engine="spark", checkpoint=str(tmp_path), resume=True, driver_threshold=0,
                    stop_at_first=False)
    assert resumed.distinct_states == whole.distinct_states == 64
    assert [v.trace for v in resumed.violations] == [v.trace for v in whole.violations]
