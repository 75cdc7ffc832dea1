"""Checkpoints: a killed or interrupted run resumes from its last complete level and reaches the same
result; a resume of other settings, or of a damaged checkpoint, is refused with a UserError."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from isrcheck import UserError, check
from tests.explorer.search.spark.helpers import summary
from tests.fixtures.models import Bits, Counters
from tests.fixtures.paths import ROOT

pytestmark = pytest.mark.spark


def manifest(path):
    return json.loads((path / "manifest.json").read_text())


def same_result(a, b):
    assert summary(a) == summary(b)
    assert [(v.property, v.trace) for v in a.violations] == [(v.property, v.trace) for v in b.violations]
    assert a.examples == b.examples


@pytest.mark.parametrize("threshold", [0, 50])
def test_interrupted_run_resumes_to_the_same_result(spark, tmp_path, threshold):
    model = Counters(3, 5, bug_at=7)
    options = dict(stop_at_first=False, driver_threshold=threshold, partitions=3)
    whole = check(model, engine="spark", **options)
    cut = check(model, engine="spark", checkpoint=str(tmp_path), interrupt_after_level=5, **options)
    assert cut.interrupted and not cut.complete
    assert manifest(tmp_path)["last_level"] == 5
    resumed = check(model, engine="spark", checkpoint=str(tmp_path), resume=True, **options)
    assert resumed.stats["resumed_from_level"] == 5
    assert resumed.complete
    same_result(resumed, whole)
    assert manifest(tmp_path)["last_level"] == whole.depth + 1  # the last, empty level is recorded too


def test_resume_of_a_finished_run_gives_its_result(spark, tmp_path):
    model = Bits(4)
    first = check(model, engine="spark", checkpoint=str(tmp_path), stop_at_first=False, driver_threshold=0)
    again = check(model, engine="spark", checkpoint=str(tmp_path), resume=True, stop_at_first=False,
                  driver_threshold=0)
    same_result(again, first)
    assert again.vacuous == ["MoreThanAllSet"]


@pytest.mark.slow  # a subprocess with its own Spark session: ~30 s
def test_killed_run_resumes_from_its_last_complete_level(spark, tmp_path):
    ckpt = tmp_path / "ckpt"
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from isrcheck import check
        from tests.fixtures.models import Counters
        check(Counters(4, 5, bug_at=9), engine="spark", master="local[1]", checkpoint={str(ckpt)!r},
              stop_at_first=False, driver_threshold=0, partitions=3)
    """))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(script)], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if (ckpt / "manifest.json").exists() and manifest(ckpt)["last_level"] >= 4:
                break
            if proc.poll() is not None:
                pytest.fail(f"the run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.05)
        else:
            pytest.fail("the run did not reach level 4 in time")
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    killed_at = manifest(ckpt)["last_level"]
    assert killed_at < 17  # killed mid-run (the run has 17 levels and an empty 18th)
    # A half-written next level (as a kill during its write leaves) must not be taken as complete.
    (ckpt / f"level-{killed_at + 1:06d}").mkdir(exist_ok=True)
    (ckpt / f"level-{killed_at + 1:06d}" / "driver.bin").write_bytes(b"half")
    options = dict(stop_at_first=False, driver_threshold=0, partitions=3)
    resumed = check(Counters(4, 5, bug_at=9), engine="spark", checkpoint=str(ckpt), resume=True, **options)
    whole = check(Counters(4, 5, bug_at=9), engine="spark", **options)
    assert resumed.stats["resumed_from_level"] == killed_at
    same_result(resumed, whole)


@pytest.fixture
def saved(spark, tmp_path):
    check(Counters(3, 4), engine="spark", checkpoint=str(tmp_path), interrupt_after_level=3, driver_threshold=0)
    return tmp_path


@pytest.mark.parametrize("change, named", [
    (dict(model=Counters(3, 5)), "model options"),
    (dict(model=Bits(3)), "model"),
    (dict(symmetry=True), "symmetry"),
    (dict(check_deadlock=True), "deadlock check"),
    (dict(properties=[]), None),  # the same selection (all) written another way is accepted
    (dict(max_depth=3), "max depth"),
    (dict(stop_at_first=False), "stop at first violation"),
])
def test_resume_with_other_settings_is_refused(saved, change, named):
    options = dict(model=Counters(3, 4), driver_threshold=0)
    options.update(change)
    model = options.pop("model")
    if named is None:
        check(model, engine="spark", checkpoint=str(saved), resume=True, **options)
        return
    with pytest.raises(UserError, match=f"{named}: checkpoint has") as err:
        check(model, engine="spark", checkpoint=str(saved), resume=True, **options)
    assert "another --checkpoint folder" in str(err.value)


def test_resume_with_another_property_selection_is_refused(spark, tmp_path):
    model = Counters(3, 4, bug_at=20)
    check(model, engine="spark", checkpoint=str(tmp_path), interrupt_after_level=2, properties=["AllAtLimit"])
    with pytest.raises(UserError, match="properties: checkpoint has 'AllAtLimit'"):
        check(model, engine="spark", checkpoint=str(tmp_path), resume=True)


def test_resume_with_other_code_is_refused(saved, monkeypatch):
    import isrcheck.explorer.search.spark.checkpoint as checkpoint

    monkeypatch.setattr(checkpoint, "code_version", lambda model, props: "edited")
    with pytest.raises(UserError, match="code version"):
        check(Counters(3, 4), engine="spark", checkpoint=str(saved), resume=True, driver_threshold=0)


def test_corrupt_manifest_is_a_user_error(saved):
    (saved / "manifest.json").write_text('{"format": "isrcheck-spark-checkpoint/1", "levels": [')
    with pytest.raises(UserError, match="corrupt or unreadable"):
        check(Counters(3, 4), engine="spark", checkpoint=str(saved), resume=True, driver_threshold=0)


def test_missing_level_data_is_a_user_error(saved):
    (saved / "level-000002" / "parents-00001.bin").unlink()
    with pytest.raises(UserError, match="level 2 of the checkpoint"):
        check(Counters(3, 4), engine="spark", checkpoint=str(saved), resume=True, driver_threshold=0)


def test_damaged_driver_level_is_a_user_error(saved):
    (saved / "level-000001" / "driver.bin").write_bytes(b"not a pickle")
    with pytest.raises(UserError, match="level 1 of the checkpoint"):
        check(Counters(3, 4), engine="spark", checkpoint=str(saved), resume=True, driver_threshold=0)


def test_resume_without_a_checkpoint_is_a_user_error(spark, tmp_path):
    with pytest.raises(UserError, match="no checkpoint to resume"):
        check(Counters(), engine="spark", checkpoint=str(tmp_path / "empty"), resume=True)


def test_a_new_run_does_not_overwrite_a_checkpoint(saved):
    with pytest.raises(UserError, match="pass --resume"):
        check(Counters(3, 4), engine="spark", checkpoint=str(saved), driver_threshold=0)


def test_a_checkpoint_of_the_old_format_is_refused_naming_both_versions(saved):
    # Format 1 kept pickled dicts of text-encoded fingerprints; format 2 pickled a user's states;
    # format 3 holds data only, so neither older one is read.
    path = saved / "manifest.json"
    old = json.loads(path.read_text())
    for version in (1, 2):
        old["format"] = f"isrcheck-spark-checkpoint/{version}"
        path.write_text(json.dumps(old))
        with pytest.raises(UserError) as err:
            check(Counters(3, 4), engine="spark", checkpoint=str(saved), resume=True, driver_threshold=0)
        text = str(err.value)
        assert f"'isrcheck-spark-checkpoint/{version}'" in text and "'isrcheck-spark-checkpoint/3'" in text
    assert "start the run again without --resume" in text.lower() and "delete" not in text.lower()
