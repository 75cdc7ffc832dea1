"""The KRaft family drawn as the classic one is (``isrcheck.model.kraft.picture``): brokers' logs
with HW and LEO, registration and broker epoch, role, ISR/ELR membership, the controller's
metadata log with what each broker applied, AlterPartition and fetches in flight; the committed
record a named broker lacks is marked in the failing state."""

from __future__ import annotations

from isrcheck.explorer.check import check
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.scenarios import get_scenario
from isrcheck.explorer.traces.html.report import check_report


def scenario_report(scenario_id: str) -> tuple[dict, object]:
    sc = get_scenario(scenario_id)
    model = build_model(sc.model, dict(sc.options))
    result = check(model, properties=list(sc.properties), **dict(sc.check_options))
    return check_report(model, result, model_name=sc.model, options=dict(sc.options))["traces"][0], model


def lane(picture: dict, name: str) -> dict:
    return next(x for x in picture["lanes"] if x["name"] == name)


def tags(lane_: dict) -> list[str]:
    return [t["text"] for t in lane_["tags"]]


def test_k7_is_drawn_broker_by_broker_with_the_controllers_metadata_log():
    entry, model = scenario_report("K7")
    last = entry["steps"][-1]
    pic = last["picture"]
    assert [x["name"] for x in pic["lanes"]] == ["broker 1", "broker 2", "broker 3", "controller"]
    b1, b2, b3 = (lane(pic, f"broker {b}") for b in (1, 2, 3))
    assert [c["text"] for c in b1["cells"]] == ["A"] and b2["cells"] == []
    assert {m["name"]: m["at"] for m in b1["marks"]} == {"HW": 1, "LEO": 1, "LESO": 0}
    assert "leader · epoch 1" in tags(b1) and "fenced · broker epoch 3" in tags(b3)
    assert "in controller ISR" in tags(b2) and "out of controller ISR" in tags(b3)
    assert any(t.startswith("AlterPartition ISR {1,2}") for t in tags(b1))
    # The controller's lane: one cell per PartitionChange record, a mark per broker at what it applied.
    fields = dict(last["fields"])
    ctl = lane(pic, "controller")
    assert len(ctl["cells"]) == fields["controller.metadataLog"].count("partitionEpoch")
    applied = {m["name"]: m["at"] for m in ctl["marks"]}
    assert applied == {f"b{b} applied": int(fields[f"brokerMetadataLog.{b}"]) for b in (1, 2, 3)}
    facts = {f["label"]: [i["text"] for i in f["items"]] for f in pic["facts"]}
    assert facts["controller"][0].startswith("leader 1 · leader epoch 1 · partition epoch 4 · ISR {1,2}")
    assert facts["AlterPartition in flight"][0].startswith("1 → controller: ISR {1,2}")
    assert "fetches in flight" not in facts  # an atomic fetch is never in flight
    # The violation names ISR member 2: the committed A is marked missing there, outlined on broker 1.
    assert pic["focus"]["missing"] == [{"lane": 1, "at": 0, "text": "committed value A (offset 0) not on broker 2"}]
    assert pic["focus"]["keys"] == ["record A of epoch 1"] and b1["cells"][0]["key"] == "record A of epoch 1"


def test_kip966_draws_the_elr_and_split_fetch_draws_fetches_in_flight():
    model = build_model("classic", {"generation": "kraft-kip966", "replicas": 2, "split_fetch": True})
    s0 = model.init_states()[0]
    facts = {f["label"]: f["value"] for f in model.picture(s0)["facts"]}
    assert "ELR {}" in facts["controller"] and "last known ELR {}" in facts["controller"]
    sent = next(t for a, t in model.successors(s0) if type(a).__name__ == "SendFetchRequest")
    fetches = {f["label"]: f["value"] for f in model.picture(sent)["facts"]}["fetches in flight"]
    assert len(fetches) == 1 and fetches[0]["text"].startswith("broker 2: FetchRequest to 1")
