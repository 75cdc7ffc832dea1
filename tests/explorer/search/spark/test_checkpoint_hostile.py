"""A checkpoint folder is data that whoever can write it controls (docs/spark.md, the trust
boundary): a hostile manifest is refused field by field before anything is sized from it, and a
level file holding a pickle (or marshal of anything but plain values) is refused without running
it, even when the manifest's checksums were forged to match. A model whose states are not plain
data gets checkpoints only through pack/unpack."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import pickle
import struct
from typing import NamedTuple

import pytest
from isrcheck.explorer.cli.main import main

from isrcheck import Property, UserError, check
from tests.fixtures.models import Counters

pytestmark = pytest.mark.spark

OPTIONS = dict(driver_threshold=0)


@pytest.fixture
def saved(spark, tmp_path):
    check(Counters(3, 4), engine="spark", checkpoint=str(tmp_path), interrupt_after_level=3, **OPTIONS)
    return tmp_path


def resume(path, **options):
    return check(Counters(3, 4), engine="spark", checkpoint=str(path), resume=True, **{**OPTIONS, **options})


def edit(path, change):
    manifest = json.loads((path / "manifest.json").read_text())
    change(manifest)
    (path / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("change, named", [
    (lambda m: m.update(partitions=1_000_000_000), "field partitions must be an integer from 1 to 100,000"),
    (lambda m: m.update(partitions=True), "field partitions must be an integer"),
    (lambda m: m.update(last_level="3"), "field last_level must be an integer from 0 to 1,000,000"),
    (lambda m: m["levels"][1].update(level="2"), "field levels[1].level must be an integer from 2 to 2"),
    (lambda m: m["levels"][0].update(where="elsewhere"), "field levels[0].where must be one of driver"),
    (lambda m: m["levels"].pop(), "field levels must be a list of 3 items"),
    (lambda m: m["run"].update(distinct=-1), "field run.distinct must be an integer from 0"),
    (lambda m: m["run"].update(stopped="no"), "field run.stopped must be true or false"),
    (lambda m: m["run"]["findings"].update(X={"kind": "always", "level": 1, "fp": 2 ** 200, "action": None}),
     "field run.findings['X'].fp must be an integer from 0 to"),
    (lambda m: m["run"].update(pending=["NoSuchProperty"]), "sometimes properties of this run"),
    (lambda m: m["files"].update({"../../etc/passwd": [1, "0" * 32]}), "a level file's name"),
    (lambda m: m.update(identity=[]), "field identity must be a JSON object"),
])
def test_a_hostile_manifest_is_refused_naming_the_field(saved, change, named):
    edit(saved, change)
    with pytest.raises(UserError) as err:
        resume(saved)
    assert named in str(err.value) and "another --checkpoint folder" in str(err.value)


@pytest.mark.parametrize("text, named", [
    ("[" * 100_000 + "]" * 100_000, "corrupt or unreadable"),  # nesting deeper than the parser's stack
    ('{"format": "isrcheck-spark-checkpoint/3", "partitions": ' + "9" * 5000 + "}", "corrupt or unreadable"),
])
def test_a_manifest_the_parser_cannot_read_is_a_user_error(saved, capsys, text, named):
    (saved / "manifest.json").write_text(text)
    args = ["check", "tests/fixtures/models.py:Counters", "--engine", "spark", "--checkpoint", str(saved), "--resume"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err and err.count("\n") == 1


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def forge(path, rel, states_blob):
    """Replace the states of a level file with ``states_blob`` and forge the manifest to match (the
    checksums are not keyed: a writer of the folder can do this)."""
    file = path / rel
    data = file.read_bytes()
    if rel.endswith("driver.bin"):
        (size,) = struct.unpack_from("<Q", data, 8)
        start = 16 + size
    else:
        start = 0
    (count,) = struct.unpack_from("<I", data, start + 8)
    head = data[:start + 12 + 16 * count]
    forged = head + states_blob
    file.write_bytes(forged)
    edit(path, lambda m: m["files"].update({rel: [len(forged), hashlib.blake2b(forged, digest_size=16).hexdigest()]}))


@pytest.mark.parametrize("where", ["driver", "executors"])
@pytest.mark.parametrize("payload", ["pickle", "marshal code"])
def test_a_level_file_that_would_run_code_is_refused_and_never_run(spark, tmp_path, where, payload):
    ckpt = tmp_path / "ckpt"
    marker = tmp_path / "marker"
    threshold = 10_000 if where == "driver" else 0
    check(Counters(3, 4), engine="spark", checkpoint=str(ckpt), interrupt_after_level=3, driver_threshold=threshold)
    rel = "level-000003/driver.bin" if where == "driver" else "level-000003/frontier-00000.bin"
    if payload == "pickle":
        blob = b"P" + pickle.dumps([Evil(marker)])
    else:
        code = compile(f"__import__('os').system('touch {marker}')", "x", "exec")
        blob = b"M" + marshal.dumps([code], 2)
    forge(ckpt, rel, blob)
    with pytest.raises(UserError) as err:
        check(Counters(3, 4), engine="spark", checkpoint=str(ckpt), resume=True, driver_threshold=threshold)
    text = str(err.value)
    assert "level" in text and "checkpoint" in text and "delete" not in text.lower()
    assert not marker.exists()


class Pos(NamedTuple):
    x: int


class Walk:
    """States that are objects of a class (a NamedTuple: a tuple subclass), not plain tuples."""

    def init_states(self):
        return [Pos(0)]

    def successors(self, state):
        if state.x < 5:
            yield "step", Pos(state.x + 1)

    def properties(self):
        return [Property.always("Small", lambda s: s.x < 10)]


class PackedWalk(Walk):
    """The same model with a data encoding: its packed states are ints."""

    def pack(self, state):
        return state.x

    def unpack(self, packed):
        return Pos(packed)


def test_a_model_whose_states_are_objects_needs_a_data_encoding_for_checkpoints(spark, tmp_path):
    with pytest.raises(UserError) as err:
        check(Walk(), engine="spark", checkpoint=str(tmp_path / "a"), driver_threshold=0)
    text = str(err.value)
    assert "Pos" in text and "pack(state)/unpack(packed)" in text and "without --checkpoint" in text
    assert check(Walk(), engine="spark", driver_threshold=0).distinct_states == 6  # no checkpoint: no need
    ckpt = tmp_path / "b"
    check(PackedWalk(), engine="spark", checkpoint=str(ckpt), driver_threshold=0, interrupt_after_level=3)
    resumed = check(PackedWalk(), engine="spark", checkpoint=str(ckpt), resume=True, driver_threshold=0)
    assert resumed.complete and resumed.distinct_states == 6


class LaterWalk(Walk):
    """Plain initial states, objects after: found where an executor writes its level."""

    def init_states(self):
        return [(0,)]

    def successors(self, state):
        if state[0] < 5:
            yield "step", Pos(state[0] + 1)

    def properties(self):
        return [Property.always("Small", lambda s: s[0] < 10)]


def test_states_that_are_objects_on_an_executor_are_a_user_error_too(spark, tmp_path, capsys):
    with pytest.raises(UserError) as err:
        check(LaterWalk(), engine="spark", checkpoint=str(tmp_path / "a"), driver_threshold=0)
    text = str(err.value)
    assert "Pos" in text and "pack(state)/unpack(packed)" in text and "Traceback" not in text
