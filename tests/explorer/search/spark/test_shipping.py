"""What executors cannot import is shipped with the run, so that a model that runs with the local
engine runs on Spark unchanged: classes defined in a script's (or a notebook's) ``__main__``, and
helper modules a model file or script imports from its own folder. On local-cluster: executors in
their own JVMs and Python workers, which see neither the driver's ``__main__`` nor its folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from isrcheck.explorer.registry import load_factory

from tests.explorer.search.spark.conftest import CLUSTER
from tests.explorer.search.spark.helpers import compare
from tests.fixtures.paths import ROOT

# Separate executor JVMs take 10-30 s to start: CI runs these, the fast loop does not.
pytestmark = [pytest.mark.spark, pytest.mark.slow]

# A helper module and a helper package beside the model: the state class lives in the module.
HELPER = '''
from typing import NamedTuple


class Cell(NamedTuple):
    row: int
    col: int

    def moved(self, dr, dc):  # a method: the class must reach executors whole, not rebuilt from its fields
        return Cell(self.row + dr, self.col + dc)
'''
HELPER_PACKAGE = {
    "__init__.py": "from .moves import MOVES\n",
    "moves.py": "MOVES = (('down', 1, 0), ('right', 0, 1))\n",
}
MODEL_FILE = '''
from isrcheck import Property
from grid_cells import Cell
from grid_moves import MOVES


class Grid:
    def __init__(self, size):
        self.size = size

    def init_states(self):
        return [Cell(0, 0)]

    def successors(self, state):
        for name, dr, dc in MOVES:
            if state.row + dr < self.size and state.col + dc < self.size:
                yield name, state.moved(dr, dc)

    def properties(self):
        return [Property.always("AvoidsCell", lambda s: (s.row, s.col) != (self.size - 2, self.size - 1)),
                Property.sometimes("Corner", lambda s: s.row == s.col == self.size - 1)]


def make_model(*, size: int = 5):
    return Grid(size)
'''


def write_helpers(folder):
    (folder / "grid_cells.py").write_text(textwrap.dedent(HELPER))
    package = folder / "grid_moves"
    package.mkdir()
    for name, text in HELPER_PACKAGE.items():
        (package / name).write_text(text)


def test_model_file_with_helper_modules_beside_it(spark_cluster, tmp_path):
    write_helpers(tmp_path)
    path = tmp_path / "grid_model.py"
    path.write_text(textwrap.dedent(MODEL_FILE))
    model = load_factory(f"{path}:make_model")(size=6)
    try:
        local, spark = compare(model, stop_at_first=False, driver_threshold=0, partitions=3)
    finally:
        for name in ("grid_cells", "grid_moves", "grid_moves.moves"):  # imported from tmp_path by the driver
            sys.modules.pop(name, None)
    assert spark.stats["master"].startswith("local-cluster")
    assert spark.distinct_states == local.distinct_states == 36
    assert [len(v.trace) for v in spark.violations] == [10]


# A script as a user writes one (or a notebook's cells): the model class and its state class (with a
# property) are defined in __main__, the moves come from a helper beside the script, and a session is
# already active.
SCRIPT = '''
import json
import os
import sys

sys.path.insert(1, {root!r})
os.environ["PYTHONPATH"] = {root!r}
from typing import NamedTuple

from pyspark.sql import SparkSession

from isrcheck import Property, check
from grid_moves import MOVES

spark = (SparkSession.builder.master({master!r}).config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.executorEnv.PYTHONPATH", {root!r})
         .config("spark.executorEnv.PYSPARK_ENABLE_NAMEDTUPLE_PATCH", "1")
         .getOrCreate())


class Pos(NamedTuple):
    row: int
    col: int
    done: bool

    @property
    def free(self):  # used by successors on executors: PySpark's namedtuple pickling would drop it
        return not self.done


class Walk:
    def __init__(self, size):
        self.size = size

    def init_states(self):
        return [Pos(0, 0, False)]

    def successors(self, state):
        if not state.free:
            return
        for name, dr, dc in MOVES:
            if state.row + dr < self.size and state.col + dc < self.size:
                yield name, Pos(state.row + dr, state.col + dc, False)
        yield "stop", state._replace(done=True)

    def properties(self):
        return [Property.always("NotStoppedAtEdge", lambda s: not (s.done and s.row == self.size - 1)),
                Property.sometimes("Corner", lambda s: s.row == s.col == self.size - 1)]


def run(engine, **options):
    r = check(Walk(5), engine=engine, stop_at_first=False, **options)
    return {{"distinct": r.distinct_states, "generated": r.generated_states, "depth": r.depth,
             "complete": r.complete, "violations": sorted((v.property, len(v.trace)) for v in r.violations),
             "reached": sorted((n, len(t)) for n, t in r.examples.items()), "master": r.stats.get("master")}}


print(json.dumps({{"local": run("local"), "spark": run("spark", driver_threshold=0, partitions=3)}}))
spark.stop()
'''


def test_model_defined_in_main_runs_on_a_cluster(tmp_path):
    write_helpers(tmp_path)
    script = tmp_path / "notebook_like.py"
    script.write_text(textwrap.dedent(SCRIPT).format(root=str(ROOT), master=CLUSTER))
    # PySpark's switch back to its 3.x record pickling (plain pickle, namedtuples by name and fields),
    # where __main__ classes are not shipped by value with each record: the engine must ship them.
    env = {**os.environ, "PYTHONPATH": "", "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_ENABLE_NAMEDTUPLE_PATCH": "1"}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    first = max(proc.stderr.find("Traceback"), 0)  # the script's error, not Spark's shutdown noise after it
    assert proc.returncode == 0, proc.stderr[first:first + 4000]
    runs = json.loads(proc.stdout.strip().splitlines()[-1])
    local, spark = runs["local"], runs["spark"]
    assert spark.pop("master").startswith("local-cluster")
    local.pop("master")
    assert spark == local
    assert local["distinct"] == 50 and local["violations"] == [["NotStoppedAtEdge", 6]]
