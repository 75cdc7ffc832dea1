"""The typed read API (model/read.py, model/kraft/read.py) against what traces print.

Every value a read state gives is compared with the trace's own view of the same state
(``state_view``), over every state of small runs, so that the names a property reads and the names
a trace prints cannot drift apart.
"""

from __future__ import annotations

import pytest
from isrcheck.explorer.errors import UserError
from isrcheck.model.factory import make_model
from isrcheck.model.read import FieldNotInModel, flatten


def _states(model, limit=400):
    seen, frontier = [], list(model.init_states())
    known = set(frontier)
    while frontier and len(seen) < limit:
        s = frontier.pop(0)
        seen.append(s)
        for _, t in model.successors(s):
            if t not in known:
                known.add(t)
                frontier.append(t)
    return seen


def _ids(values):
    return sorted(values)


@pytest.mark.parametrize("options", [
    {},
    {"consumer_reads": "leader", "acks": "all", "max_crashes": 1, "stops": "all"},
    {"consumer_reads": "any", "azs": 2, "max_az_failures": 1, "replicas": 2},
])
def test_classic_reads_equal_the_trace_view(options):
    model = make_model(**options)
    for raw in _states(model):
        s, view = model.read(raw), flatten(model.state_view(raw))
        for r in s.replicas:
            assert [{"id": rec.id, "epoch": rec.epoch} for rec in r.log] == view[f"replicaLog.{r.id}"]
            assert r.log_end == len(view[f"replicaLog.{r.id}"])
            assert r.hw == view[f"replicaState.{r.id}.hw"]
            assert r.leader_epoch == view[f"replicaState.{r.id}.leaderEpoch"]
            assert r.leader == view[f"replicaState.{r.id}.leader"]
            assert _ids(r.isr) == view[f"replicaState.{r.id}.isr"]
        assert s.controller.leader == view["quorumState.leader"]
        assert s.controller.leader_epoch == view["quorumState.leaderEpoch"]
        assert _ids(s.controller.isr) == view["quorumState.isr"]
        assert s.next_record_id == view["nextRecordId"] and s.next_leader_epoch == view["nextLeaderEpoch"]
        assert [{"leaderEpoch": q.leader_epoch, "leader": q.leader, "isr": _ids(q.isr)} for q in s.requests] \
            == view["leaderAndIsrRequests"]
        assert (s.leader is None) == (s.controller.leader is None)
        assert s["quorumState.leader"] == view["quorumState.leader"]
        if "ackedRecords" in view:
            assert _ids(s.acked_records) == view["ackedRecords"]
            assert _ids(s.stopped_brokers) == view["stoppedBrokers"] and s.stops == view["stops"]
            assert {str(r.id): r.flushed_offset for r in s.replicas} == model.state_view(raw)["flushedOffset"]
            assert [r.id for r in s.replicas if r.stopped] == view["stoppedBrokers"]
        if "served.0" in view:
            assert {str(k): v for k, v in s.served.items()} == model.state_view(raw)["served"]
        if "racks.1" in view:
            assert {str(r.id): r.rack for r in s.replicas} == model.state_view(raw)["racks"]
            assert s.az_failures == view["azFailures"]


def test_a_field_the_options_do_not_add_names_the_option():
    model = make_model()
    s = model.read(model.init_states()[0])
    with pytest.raises(FieldNotInModel, match="--consumer-reads leader or any") as err:
        _ = s.served
    assert isinstance(err.value, UserError)
    with pytest.raises(FieldNotInModel, match="--acks"):
        _ = s.acked_records
    with pytest.raises(FieldNotInModel, match="--max-crashes"):
        _ = s.replica(1).stopped
    assert not hasattr(s, "stopped_brokers")  # an AttributeError too: getattr(s, name, default) works
    assert set(s.absent_fields()) >= {"served", "acked_records", "stopped_brokers", "stopped", "rack"}
    on = make_model(consumer_reads="leader")
    assert "served" not in on.read(on.init_states()[0]).absent_fields()


def test_replica_ids_out_of_range_and_unknown_trace_keys_are_refused_with_the_choices():
    model = make_model()
    s = model.read(model.init_states()[0])
    with pytest.raises(UserError, match="replicas 1..2"):
        s.replica(0)
    with pytest.raises(KeyError, match="replicaState.1.hw"):
        s["replicaState.1.HW"]


def test_kraft_reads_equal_the_trace_view():
    model = make_model(generation="kraft-kip966", replicas=3, max_crashes=1, stops="lossy", max_leader_shrinks=1,
                       split_fetch=True)
    assert any(model.read(raw).broker(1).pending_alter_partition for raw in _states(model, 600))
    assert any(b.fetches_in_flight for raw in _states(model, 600) for b in model.read(raw).brokers)
    for raw in _states(model, 300):
        s, view = model.read(raw), model.state_view(raw)
        for b in s.brokers:
            assert b.status == view[f"brokerState.status.{b.id}"]
            assert b.role == view[f"partitionStatus.{b.id}"]
            assert [{"value": r.value, "epoch": r.epoch} for r in b.log] == view[f"partitionData.log.{b.id}"]
            assert b.hw == view[f"partitionData.hwm.{b.id}"]
            assert b.leader == view[f"partitionMetadata.leader.{b.id}"]
            assert b.leader_epoch == view[f"partitionMetadata.leaderEpoch.{b.id}"]
            assert _ids(b.isr) == view[f"partitionMetadata.isr.{b.id}"]
            assert b.epoch_start == view[f"partitionLeso.{b.id}"] == b["partitionLeso"]
            assert b.unfenced == view[f"controller.unfenced.{b.id}"]
            pending = view[f"pendingAlterPartition.{b.id}"]
            assert b.pending_alter_partition == (pending if pending["phase"] else None)
            assert b.fetches_in_flight == view[f"fetchesInFlight.{b.id}"]
        log = view["controller.metadataLog"]
        assert [(r.leader, r.leader_epoch, r.partition_epoch, _ids(r.isr), _ids(r.elr)) for r in s.metadata_log] \
            == [(r["leader"], r["leaderEpoch"], r["partitionEpoch"], r["isr"], r["elr"]) for r in log]
        assert s.controller == s.metadata_log[-1]
        assert _ids(s.acked_values) == view["invPosAcked"] and _ids(s.sent_values) == view["invSent"]
        assert s["partitionData.hwm.2"] == view["partitionData.hwm.2"]
        assert s.stopped_brokers == {b.id for b in s.brokers if b.status != "RUNNING"}
