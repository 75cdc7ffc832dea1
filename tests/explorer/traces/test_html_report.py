"""The HTML trace report without a browser: its data (steps, changes, pictures, focus), the page's
self-containment and size, the per-level counts it charts, and the command line's --html and show.
tests/explorer/traces/test_html_browser.py looks at the same pages in chromium."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from isrcheck.explorer.check import check
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.errors import ContractError
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import get_scenario
from isrcheck.explorer.traces.html import render
from isrcheck.explorer.traces.html.report import check_report, lasso_of, normalise_picture, trace_entry
from isrcheck.explorer.traces.views import changes, view
from isrcheck.model.encoding.picture import named_in
from isrcheck.model.encoding.picture import picture as model_picture

from tests.fixtures.models import Counters, Tick
from tests.fixtures.paths import ROOT
from tests.fixtures.report_sample import sample_model, sample_page, walk

RACY = str(ROOT / "tests" / "fixtures" / "racy_lock.py")


def scenario_run(scenario_id: str):
    sc = get_scenario(scenario_id)
    model = build_model(sc.model, dict(sc.options))
    result = check(model, properties=list(sc.properties), **dict(sc.check_options))
    return sc, model, result


def page_data(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="isrcheck-data">(.*?)</script>', page, re.S)
    assert match, "the page carries its data in #isrcheck-data"
    return json.loads(match.group(1))


def lane(picture: dict, name: str) -> dict:
    return next(x for x in picture["lanes"] if x["name"] == name)


def test_the_detail_names_records_and_offsets():
    assert named_in("leader 1 (hw=1) and quorum ISR member 2 differ at offset 0: 1 has record 0 of epoch 0, "
                    "2 has nothing") == ([0], [0])
    assert named_in("leader 2 (epoch 2) serves without acknowledged record(s) 0, 3") == ([0, 3], [])
    assert named_in("the quorum has no leader (None)") == ([], [])


def test_a_named_record_is_lost_where_a_log_ends_and_diverged_where_another_sits():
    st = {"hw": 1, "leaderEpoch": 2, "leader": 1, "isr": [1, 2]}
    state_view = {
        "replicaLog": {"1": [{"id": 1, "epoch": 2}], "2": [{"id": 0, "epoch": 0}], "3": []},
        "replicaState": {"1": st, "2": {**st, "leader": 1}, "3": {**st, "leaderEpoch": 0}},
        "quorumState": {"leaderEpoch": 2, "leader": 1, "isr": [1, 2]},
        "leaderAndIsrRequests": [{"leaderEpoch": 2, "leader": 1, "isr": [1, 2]}],
    }
    pic = model_picture(state_view, "differ at offset 0: 1 has record 1 of epoch 2, 2 has record 0 of epoch 0")
    assert pic["focus"]["missing"] == [
        {"lane": 1, "at": 0, "text": "replica 2 has record 0 at offset 0, not record 1"},
        {"lane": 2, "at": 0, "text": "record 1 missing at replica 3"},  # outside the controller's ISR
        {"lane": 0, "at": 0, "text": "replica 1 has record 1 at offset 0, not record 0"},
        {"lane": 2, "at": 0, "text": "record 0 missing at replica 3"},
    ]
    assert pic["facts"][1]["value"] == [{"text": "epoch 2: leader 1, ISR {1,2} → pending at 3", "tone": "lead"}]
    assert "focus" not in model_picture(state_view)


def test_k1_report_one_step_per_state_with_the_text_traces_changes():
    sc, model, result = scenario_run("K1")
    violation = result.violations[0]
    data = check_report(model, result, model_name=sc.model, options=dict(sc.options))
    (entry,) = data["traces"]
    assert len(entry["steps"]) == len(violation.trace) == 10
    assert entry["fail"] == 9 and "differ at offset 0" in entry["detail"]
    views = [view(model, s) for s in violation.trace.states]
    for i, step in enumerate(entry["steps"]):
        assert step["action"] == ("initial state" if i == 0 else repr(violation.trace.steps[i].action))
        if i:
            assert [c[0] for c in step["changed"]] == [p for p, _, _ in changes(views[i - 1], views[i])]
    # LeaderWrite (state 6) appends record 0 at offset 0 of replica 1: that cell, and only it, changed.
    write = entry["steps"][5]["picture"]
    assert entry["steps"][5]["action"].startswith("LeaderWrite")
    assert [c.get("changed", False) for c in lane(write, "replica 1")["cells"]] == [True]
    assert lane(write, "replica 2")["cells"] == []
    # The last step truncates replica 2's copy of record 0 away and the violation names it lost there.
    last = entry["steps"][-1]["picture"]
    assert lane(last, "replica 2")["removed"] == [{"at": 0, "text": "0"}]
    assert last["focus"]["keys"] == ["record 0"] and last["focus"]["offsets"] == [0]
    assert last["focus"]["missing"] == [{"lane": 1, "at": 0, "text": "record 0 lost at replica 2"}]
    # Only the failing state's picture is asked to mark anything.
    assert all("focus" not in s["picture"] for s in entry["steps"][:-1])
    assert data["header"]["levels"] == result.levels and data["header"]["tone"] == "bad"


def test_k8_marks_the_acknowledged_record_lost_on_the_new_leader():
    sc, model, result = scenario_run("K8")
    entry = check_report(model, result, model_name=sc.model, options=dict(sc.options))["traces"][0]
    last = entry["steps"][-1]["picture"]
    r1, r2 = lane(last, "replica 1"), lane(last, "replica 2")
    assert r1["dim"] and {"text": "stopped", "tone": "bad"} in r1["tags"]
    assert r1["cells"][0]["key"] == "record 0" and r1["cells"][0]["tick"]  # acknowledged, on a dead broker
    assert r2["cells"] == [] and any(t["text"].startswith("leader") for t in r2["tags"])
    assert last["focus"]["missing"] == [{"lane": 1, "at": 0, "text": "record 0 lost at replica 2"}]
    marks = {m["name"]: m["at"] for m in r1["marks"]}
    assert marks == {"HW": 1, "LEO": 1}


def test_a_users_model_gets_the_generic_rendering():
    model = build_model(RACY, {})
    result = check(model)
    data = check_report(model, result, model_name=RACY, options={})
    entry = data["traces"][0]
    assert entry["name"] == "MutualExclusion" and entry["fail"] == 4
    assert len(entry["steps"]) == 5 and all("picture" not in s for s in entry["steps"])
    assert entry["steps"][2]["changed"] == [["pc.p1", "idle", "checked"]]
    assert [p for p, _ in entry["steps"][0]["fields"]] == ["pc.p0", "pc.p1", "flag.p0", "flag.p1"]


def test_sometimes_examples_are_traces_too_and_levels_count_every_state():
    model = Counters(n=2, limit=3)
    result = check(model)
    assert result.complete and result.levels == [1, 2, 3, 2, 1]  # states by counter sum 0..4
    assert sum(result.levels) == result.distinct_states and len(result.levels) == result.depth
    data = check_report(model, result, model_name="counters", options={})
    assert [t["name"] for t in data["traces"]] == ["AllAtLimit"] and data["traces"][0]["fail"] is None
    assert data["header"]["tone"] == "good"


def test_a_broken_picture_hook_is_a_contract_error():
    with pytest.raises(ContractError, match="lanes"):
        normalise_picture({"lanes": "r1"})
    with pytest.raises(ContractError, match=r"lanes\[0\]\.marks\[0\]\.at"):
        normalise_picture({"lanes": [{"name": "r1", "marks": [{"name": "HW", "at": "one"}]}]})


class _Hostile(Counters):
    """Counters whose action text tries to close the data's script element."""

    def successors(self, state):
        for action, nxt in super().successors(state):
            yield f"</script><script>alert(1)</script>{action}", nxt


def test_the_page_is_self_contained_and_text_cannot_escape_the_data():
    model = _Hostile(n=1, limit=3)
    result = check(model)
    page = render(check_report(model, result, model_name="x</title>", options={}))
    assert "</script><script>alert" not in page and "x</title>" not in page
    assert page.count("<script") == 2 and "<link" not in page and " src=" not in page
    assert not re.search(r"(?:url\(|@import|fetch\(|XMLHttpRequest|https?://(?!www\.w3\.org/2000/svg))", page)
    assert page_data(page)["traces"][0]["steps"][1]["action"].startswith("'</script>")


def test_a_30_state_trace_of_3_replicas_stays_under_200_kb():
    model = sample_model()
    trace = walk(model, 30)
    assert sum(len(lane["cells"]) for lane in model.picture(trace.last)["lanes"]) >= 6  # logs did fill up
    entry, page = sample_page(model, trace)
    size = len(page.encode())
    print(f"30-state, 3-replica report: {size:,} bytes")
    assert len(entry["steps"]) == 30 and size < 200_000


def test_cli_check_scenario_and_show_write_pages(capsys, tmp_path):
    page, trace_file = tmp_path / "k1.html", tmp_path / "k1.itf.json"
    assert main(["scenario", "K1", "--quiet", "--html", str(page), "--trace-json", str(trace_file)]) == 0
    assert f"Wrote {page}" in capsys.readouterr().out
    data = page_data(page.read_text())
    assert data["header"]["scenario"]["id"] == "K1" and len(data["traces"][0]["steps"]) == 10
    assert ["catalogue", "expected violated, trace of 10 states; got violated, trace of 10 states "
            "(as the catalogue says)"] in data["header"]["counts"]

    # Replayed against a model the user names: the run's very page, pictures included.
    shown = tmp_path / "shown.html"
    assert main(["show", str(trace_file), "--html", str(shown), "--model", "classic"]) == 0
    assert "Wrote" in capsys.readouterr().out
    again = page_data(shown.read_text())
    assert again["traces"][0]["steps"] == data["traces"][0]["steps"]
    assert again["header"]["verdict"].startswith("StrongIsr fails at state 10")

    # From the file alone: the same actions, fields, changes and signals, without the model's pictures.
    alone = tmp_path / "alone.html"
    assert main(["show", str(trace_file), "--html", str(alone)]) == 0
    recorded = page_data(alone.read_text())
    assert recorded["header"]["verdict"].startswith("StrongIsr fails at state 10 (as recorded in the file")
    without_pictures = [{k: v for k, v in step.items() if k != "picture"} for step in data["traces"][0]["steps"]]
    assert recorded["traces"][0]["steps"] == without_pictures

    assert main(["show", str(trace_file)]) == 0
    assert "State 10: BecomeFollowerAndTruncate" in capsys.readouterr().out

    # The header names the options that differ from the model's defaults.
    assert data["header"]["options"] == ["generation=truncate-to-hw"] == again["header"]["options"]

    # A lasso (liveness scenario L1): the run's page and the trace file's page both draw its loop.
    lasso_file, lasso_page = tmp_path / "l1.itf.json", tmp_path / "l1.html"
    assert main(["scenario", "L1", "--quiet", "--html", str(lasso_page), "--trace-json", str(lasso_file)]) == 0
    ran = page_data(lasso_page.read_text())["traces"][0]
    loop = json.loads(lasso_file.read_text())["loop"]
    assert ran["loop"] == loop and "lasso" in ran and "violated by a lasso" in ran["title"]
    assert main(["show", str(lasso_file), "--html", str(shown), "--model", "classic"]) == 0
    replayed = page_data(shown.read_text())["traces"][0]
    assert replayed["loop"] == loop and replayed["lasso"] == ran["lasso"]
    assert main(["show", str(lasso_file), "--html", str(alone)]) == 0
    recorded = page_data(alone.read_text())["traces"][0]
    assert recorded["loop"] == loop and recorded["lasso"] == {k: v for k, v in ran["lasso"].items() if k != "picture"}
    # Both mark the state where EventuallyOnline's trigger held (the crash that left it offline).
    assert ran["trigger"] == replayed["trigger"] == 4

    racy = tmp_path / "racy.html"
    assert main(["check", RACY, "--quiet", "--html", str(racy)]) == 1
    assert len(page_data(racy.read_text())["traces"][0]["steps"]) == 5


def test_cli_refuses_an_unusable_html_path_before_searching(capsys, tmp_path):
    assert main(["check", "classic", "--html", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err and "Model checking" not in err
    assert main(["scenario", "K1", "--html", str(tmp_path / "missing" / "k1.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_show_a_trace_that_no_longer_replays_exits_3(capsys, tmp_path):
    trace_file = tmp_path / "k1.itf.json"
    assert main(["scenario", "K1", "--quiet", "--trace-json", str(trace_file)]) == 0
    data = json.loads(trace_file.read_text())
    data["states"][5]["#meta"]["action"] = "LeaderWrite(leader=2, record_id=0, epoch=0, offset=0)"
    trace_file.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["show", str(trace_file), "--html", str(tmp_path / "x.html"), "--model", "classic"]) == 3
    assert "diverged at state 6" in capsys.readouterr().err and not (tmp_path / "x.html").exists()


def test_a_lasso_carries_its_closing_step():
    model = Counters(n=1, limit=4)
    trace = check(model).examples["AllAtLimit"]
    entry = trace_entry(model, trace, name="Cycle", kind="eventually", loop=1, loop_action="Reset(to=1)")
    assert entry["loop"] == 1
    assert entry["lasso"] == {"action": "Reset(to=1)", "stutters": False, "changed": [["c0", "3", "1"]]}
    stutter = trace_entry(model, trace, name="Cycle", kind="eventually", loop=3)
    assert stutter["lasso"]["stutters"] and stutter["lasso"]["changed"] == []
    # A liveness Trace carries loop and loop_action; the report reads them by name.
    lasso = SimpleNamespace(loop=2, loop_action=Tick(0))
    assert lasso_of(lasso) == (2, "Tick(process=0)") and lasso_of(trace) == (None, None)
