"""One step of the KRaft family as an event of a space-time (swimlane) diagram: which lane acts (a
broker, or the controller) and which messages go from one lane to another.

The controller's metadata log is what brokers learn from: a record appended by a step is sent from
the controller's lane, and received by the ``ReceiveMetadataUpdate`` that applies it, however many
steps later. AlterPartition (request, then response), broker registration (request, then response)
and, with ``--split-fetch``, fetch requests and responses are messages of their own. An atomic
fetch (the default) is one step: an arrow in its row from the leader to the follower. Lanes are
named as the picture's (``broker N``, ``controller``), so the report can follow a record across them.

Built from the states' named variables (``KraftModel.state_view``) and the action's fields.
"""

from __future__ import annotations

from typing import Any

CONTROLLER = "controller"


def _broker(b: int) -> str:
    return f"broker {b}"


def _ids(members: list[int]) -> str:
    return "{" + ",".join(str(m) for m in members) + "}"


def _metadata_sent(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, str]]:
    old, new = before["controller.metadataLog"], after["controller.metadataLog"]
    out = []
    for offset in range(len(old), len(new)):
        rec = new[offset]
        leader = "none" if rec["leader"] is None else rec["leader"]
        out.append({"id": f"metadata {offset}", "from": CONTROLLER,
                    "label": f"p{rec['partitionEpoch']}: leader {leader} ISR {_ids(rec['isr'])}"})
    return out


def event(action: Any, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The swimlane event of ``action`` taking state ``before`` to ``after`` (both ``state_view``)."""
    name = repr(action).split("(")[0]
    out: dict[str, Any] = {"lane": CONTROLLER, "label": name, "send": _metadata_sent(before, after),
                           "receive": [], "arrows": []}
    kind = type(action).__name__
    if kind == "ReceiveMetadataUpdate":
        b = action.broker
        out["lane"] = _broker(b)
        out["receive"] = [f"metadata {k}" for k in range(before[f"brokerMetadataLog.{b}"], action.offset)]
        out["label"] = f"apply metadata: {action.then}"
    elif kind == "Fetch":
        out["lane"] = _broker(action.follower)
        out["arrows"] = [{"from": _broker(action.leader), "to": _broker(action.follower),
                          "label": f"fetch @{action.offset}: {action.result}"}]
    elif kind == "SendFetchRequest":
        out["lane"] = _broker(action.follower)
        out["send"] = [{"id": f"fetch {action.follower}>{action.leader}", "label": f"Fetch @{action.offset}"}]
    elif kind == "ReceiveFetchRequest":
        out["lane"] = _broker(action.broker)
        out["receive"] = [f"fetch {action.follower}>{action.broker}"]
        out["send"] = [{"id": f"response {action.broker}>{action.follower}", "label": f"response: {action.result}"}]
    elif kind == "ReceiveFetchResponse":
        out["lane"] = _broker(action.follower)
        out["receive"] = [f"response {action.leader}>{action.follower}"]
        out["label"] = f"fetch response: {action.result}"
    elif kind == "SendAlterPartitionRequest":
        out["lane"] = _broker(action.leader)
        out["send"] = [{"id": f"AlterPartition {action.leader}",
                        "label": f"AlterPartition ISR {_ids(list(action.isr))}"}]
    elif kind == "ReceiveAlterPartitionRequest":
        out["receive"] = [f"AlterPartition {action.leader}"]
        out["send"] += [{"id": f"AlterPartition response {action.leader}", "label": f"AlterPartition {action.result}"}]
        out["label"] = f"AlterPartition {action.result}"
    elif kind == "ReceiveAlterPartitionResponse":
        out["lane"] = _broker(action.leader)
        out["receive"] = [f"AlterPartition response {action.leader}"]
    elif kind == "BrokerStart":
        out["lane"] = _broker(action.broker)
        out["send"] = [{"id": f"register {action.broker}", "label": "RegisterBroker"}]
    elif kind == "ReceiveBrokerRegRequest":
        out["receive"] = [f"register {action.broker}"]
        out["send"] += [{"id": f"registered {action.broker}", "label": f"broker epoch {action.broker_epoch}"}]
        out["label"] = f"register {action.broker}"
    elif kind == "ReceiveBrokerRegResponse":
        out["lane"] = _broker(action.broker)
        out["receive"] = [f"registered {action.broker}"]
    elif kind == "WriteRecordToLeader":
        out["lane"] = _broker(action.leader)
        out["label"] = f"write {action.value} @{action.offset}"
    elif kind == "Shutdown":
        out["lane"] = _broker(action.broker)
    elif kind in ("FenceBroker", "UnfenceBroker"):
        out["label"] = f"{'fence' if kind == 'FenceBroker' else 'unfence'} {action.broker}"
    return out
