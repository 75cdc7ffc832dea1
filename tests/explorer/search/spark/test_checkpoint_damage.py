"""A truncated or altered checkpoint file is found on --resume before Spark reads it: exit 2 with one
paragraph naming the file, its level and the fix (step back one level when only the last level is
damaged, otherwise a new run in another folder, never deleting one that may be live); never Java
or Python traces, never another level named."""

from __future__ import annotations

import json
import shutil
import textwrap

import pytest
from isrcheck.explorer.cli.main import main

from isrcheck import UserError, check
from tests.explorer.search.spark.helpers import summary
from tests.fixtures.models import Counters

pytestmark = pytest.mark.spark

MODEL = '''
class Grid:
    """Two counters; a bound on their sum is the property."""

    def __init__(self, size):
        self.size = size

    def init_states(self):
        return [(0, 0)]

    def successors(self, state):
        a, b = state
        if a + 1 < self.size:
            yield "a", (a + 1, b)
        if b + 1 < self.size:
            yield "b", (a, b + 1)

    def properties(self):
        from isrcheck import Property
        return [Property.always("SumBelow", lambda s: s[0] + s[1] < 2 * self.size)]


def make_model(*, size: int = 6):
    return Grid(size)
'''

OPTIONS = dict(stop_at_first=False, driver_threshold=0, partitions=3)


def truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.fixture
def cut(spark, tmp_path):
    """A run interrupted after level 5 (levels 2-5 on executors), its checkpoint in tmp_path."""
    check(Counters(3, 4, bug_at=6), engine="spark", checkpoint=str(tmp_path), interrupt_after_level=5, **OPTIONS)
    return tmp_path


def test_truncated_file_of_an_earlier_level_names_it_and_says_start_elsewhere(cut):
    damaged = cut / "level-000003" / "parents-00001.bin"
    truncate(damaged)
    with pytest.raises(UserError) as err:
        check(Counters(3, 4, bug_at=6), engine="spark", checkpoint=str(cut), resume=True, **OPTIONS)
    text = str(err.value)
    assert "level-000003/parents-00001.bin (level 3 of the checkpoint)" in text
    assert "bytes where the run wrote" in text
    assert "Levels 3 to 5 cannot be resumed" in text and "in another --checkpoint folder" in text
    assert "delete" not in text.lower()
    assert "\n" not in text and "Traceback" not in text and "py4j" not in text.lower()


def test_damaged_last_level_can_be_stepped_back_from(cut):
    model = Counters(3, 4, bug_at=6)
    damaged = cut / "level-000005" / "frontier-00002.bin"
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other content: found by the checksum
    damaged.write_bytes(bytes(data))
    with pytest.raises(UserError) as err:
        check(model, engine="spark", checkpoint=str(cut), resume=True, **OPTIONS)
    text = str(err.value)
    assert "level-000005/frontier-00002.bin (level 5 of the checkpoint)" in text
    assert "checksum differs" in text
    assert f"mv {cut / 'manifest.prev.json'} {cut / 'manifest.json'}" in text
    # The fix the message gives works: back to level 4, level 5 computed again, the same result.
    shutil.move(cut / "manifest.prev.json", cut / "manifest.json")
    resumed = check(model, engine="spark", checkpoint=str(cut), resume=True, **OPTIONS)
    assert resumed.stats["resumed_from_level"] == 4
    whole = check(model, engine="spark", **OPTIONS)
    assert summary(resumed) == summary(whole)
    assert [v.trace for v in resumed.violations] == [v.trace for v in whole.violations]


def test_cli_resume_of_a_truncated_checkpoint_exits_2_with_one_paragraph(spark, tmp_path, capsys):
    path = tmp_path / "grid_model.py"
    path.write_text(textwrap.dedent(MODEL))
    ckpt = tmp_path / "ckpt"
    args = ["check", f"{path}:make_model", "--engine", "spark", "--driver-threshold", "0", "--partitions", "2",
            "--checkpoint", str(ckpt), "--quiet"]
    assert main(args) == 0
    last = json.loads((ckpt / "manifest.json").read_text())["last_level"]
    truncate(ckpt / f"level-{last - 4:06d}" / "parents-00000.bin")
    capsys.readouterr()
    assert main([*args, "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"parents-00000.bin (level {last - 4} of the checkpoint)" in err
    assert "in another --checkpoint folder" in err and "delete" not in err.lower()
