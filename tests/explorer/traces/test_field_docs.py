"""Every field a trace shows has a one-line description (the models' ``field_docs``), on the page
and under ``--explain`` in text; the page's header names every option, defaults included."""

from __future__ import annotations

import json
import re

import pytest
from isrcheck.explorer.check import check
from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.traces.glossary import describer, glossary
from isrcheck.explorer.traces.html.report import check_report, trace_entry
from isrcheck.explorer.traces.views import flatten, view
from isrcheck.model.encoding import fields as classic_fields
from isrcheck.model.kraft import fields as kraft_fields

from tests.fixtures.models import Counters
from tests.fixtures.paths import ROOT

# Every option that adds a field, in each family.
CONFIGS = [
    {"generation": "kip320", "acks": "all", "max_crashes": 1, "stops": "lossy", "unclean_election": "any",
     "consumer_reads": "any"},
    {"generation": "kip320", "replicas": 3, "azs": 3, "max_az_failures": 1},
    {"generation": "kraft-3.5", "replicas": 2, "max_crashes": 1, "split_fetch": True},
    {"generation": "kraft-kip966", "replicas": 3, "max_records": 1, "max_fencings": 1},
]


def test_every_row_of_both_field_tables_has_a_description():
    rows = (*classic_fields.REPLICA_FIELDS, *classic_fields.GLOBAL_FIELDS, *classic_fields.OPTION_FIELDS,
            *kraft_fields.BROKER_FIELDS, *kraft_fields.GLOBAL_FIELDS)
    assert [f.view for f in rows if not f.doc.strip()] == []
    assert [f.view for f in rows if "\n" in f.doc] == []


def some_states(model, n: int = 60) -> list:
    """The initial states and a breadth-first handful of their successors."""
    states, frontier = list(model.init_states()), list(model.init_states())
    while frontier and len(states) < n:
        frontier = [t for s in frontier for _, t in model.successors(s)][: n - len(states)]
        states += frontier
    return states


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: o["generation"] + "-" + str(len(o)))
def test_every_field_a_trace_shows_is_described(options):
    model = build_model("classic", options)
    describe = describer(model)
    paths = {p for s in some_states(model) for p in flatten(view(model, s))}
    assert paths and sorted(p for p in paths if not describe(p)) == []


def test_the_kraft_ghost_and_spec_names_are_explained():
    model = build_model("classic", {"generation": "kraft-kip966"})
    describe = describer(model)
    assert "first offset this leader wrote" in describe("auxFlo.1")
    assert "epoch starts" in describe("partitionLeso.2")
    assert "failed" in describe("invNegAcked") and "highest high watermark" in describe("invTrueHwm")
    assert "LEO" in describe("partitionReplicaState.1.2.leo")
    # A model without the hook describes nothing, and a glossary of it is empty.
    assert describer(Counters(n=1, limit=2))("c0") == "" and glossary(Counters(n=1, limit=2), ["c0"]) == []


def test_explain_prints_what_each_field_shown_means(capsys):
    assert main(["scenario", "K7", "--quiet", "--explain"]) == 0  # as the catalogue expects
    out = capsys.readouterr().out
    assert "\nFields:\n" in out
    fields = out.split("\nFields:\n", 1)[1]
    assert re.search(r"^    auxFlo: \(ghost\) the first offset", fields, re.M)
    assert re.search(r"^    partitionData\.hwm: the replica's high watermark", fields, re.M)
    # One line per field, not one per broker's copy.
    assert len(re.findall(r"^    partitionData\.log:", fields, re.M)) == 1
    assert main(["scenario", "K7", "--quiet"]) == 0
    assert "Fields:" not in capsys.readouterr().out


def test_the_page_carries_each_fields_description():
    model = build_model("classic", {"generation": "kraft-3.5"})
    entry = trace_entry(model, _a_trace(model), name="t")
    assert entry["docs"]["auxFlo.1"].startswith("(ghost)")
    assert set(entry["docs"]) == {p for p, _ in entry["steps"][0]["fields"]}


def _a_trace(model):
    from isrcheck.explorer.result import Step, Trace

    s0 = model.init_states()[0]
    action, s1 = next(iter(model.successors(s0)))
    return Trace([Step(None, s0), Step(action, s1)])


def test_the_header_lists_every_option_defaults_included(tmp_path, capsys):
    model = build_model("classic", {"generation": "kip101"})
    result = check(model, properties=["StrongIsr"])
    head = check_report(model, result, model_name="classic", options={"generation": "kip101"})["header"]
    assert head["options"] == ["generation=kip101"]
    assert "replicas=2" in head["defaults"] and "acks=none" in head["defaults"]
    assert "split_fetch=False" in head["defaults"] and not any(d.startswith("generation=") for d in head["defaults"])
    page = tmp_path / "k.html"
    assert main(["check", "classic", "--generation", "kip101", "--invariant", "StrongIsr", "--quiet",
                 "--html", str(page)]) == 1
    capsys.readouterr()
    data = json.loads(re.search(r'id="isrcheck-data">(.*?)</script>', page.read_text(), re.S).group(1))
    assert "max_leader_epoch=2" in data["header"]["defaults"]


def test_show_explains_a_trace_files_fields(capsys):
    assert main(["show", str(ROOT / "docs" / "examples" / "k8.itf.json"), "--explain"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^    ackedRecords: the record ids the producer was told are written", out, re.M)
    assert re.search(r"^    stoppedBrokers: the brokers that are stopped now", out, re.M)
