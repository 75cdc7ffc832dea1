"""The KRaft family's state drawn as the classic family's is: the picture the HTML trace report
shows (``isrcheck.explorer.contract``'s optional ``picture`` hook), built from ``KraftModel.state_view``.

One lane per broker: its replica's log as cells (offset above, the record's value inside, the
leader epoch it was written in as the cell's colour), its high watermark (HW), log end offset
(LEO) and, on a leader, where its leader epoch starts (LESO, the spec's ``partitionLeso``) as marks
between cells; tags say whether the broker runs, is offline or starting, whether the controller
counts it fenced or unfenced and with which broker epoch (and the broker's own, when they differ),
whether it leads or follows (as it believes) in which leader epoch, and whether the controller
counts it in the ISR, the ELR or the last known ELR. Then one lane for the controller: its metadata
log of PartitionChange records (partition epoch inside, leader epoch as colour, the whole record
as the cell's hint) with a mark per broker at what that broker has applied. Facts: the partition as
the controller has it now, the AlterPartition requests and fetches in flight, what each leader
knows of its followers, and the producer's ghost variables (sent, acknowledged, the true HW).

A property's detail names brokers (``ISR member(s) [2]``, ``leader 1``); in the failing state the
picture marks, on each named broker, every committed record (below the true high watermark) that
its log lacks, and the report follows those records through every step of the trace.
"""

from __future__ import annotations

import re
from typing import Any

_MEMBERS = re.compile(r"member\(s\)\s*\[([\d,\s]+)\]")
_LEADER = re.compile(r"leader (\d+)")


def _ids(members: list[int]) -> str:
    return "{" + ",".join(str(m) for m in members) + "}"


def _key(rec: dict[str, Any]) -> str:
    return f"record {rec['value']} of epoch {rec['epoch']}"


def _broker_lane(b: int, view: dict[str, Any], current: dict[str, Any], acked: set[str]) -> dict[str, Any]:
    def get(name: str) -> Any:
        return view[f"{name}.{b}"]

    status = get("brokerState.status")
    tags: list[Any] = []
    if status == "RUNNING":
        tags.append("running")
    elif status.startswith("OFFLINE"):
        tags.append({"text": "offline (lossy shutdown)" if status == "OFFLINE_DIRTY" else "offline (clean shutdown)",
                     "tone": "bad"})
    else:
        tags.append({"text": "starting, registered" if "registered" in status else "starting", "tone": "warn"})
    epoch, registered = get("brokerState.brokerEpoch"), get("controller.brokerEpoch")
    if get("controller.unfenced"):
        tags.append({"text": f"unfenced · broker epoch {registered}", "tone": "good"})
    else:
        tags.append({"text": f"fenced · broker epoch {registered}", "tone": "warn"})
    if epoch != registered:
        tags.append({"text": f"its own broker epoch {epoch}", "tone": "warn"})
    role, leader = get("partitionStatus"), get("partitionMetadata.leader")
    leader_epoch = get("partitionMetadata.leaderEpoch")
    if role == "Leader":
        tags.append({"text": f"leader · epoch {leader_epoch}", "tone": "lead"})
    elif role == "Follower":
        source = get("fetcher")
        tags.append(f"follower of {leader if leader is not None else 'no one'} · epoch {leader_epoch}"
                    + (f" · fetches from {source}" if source is not None and source != leader else ""))
    if current["leader"] == b and role != "Leader":  # elected, but the broker has not applied it yet
        tags.append({"text": f"leader per controller · epoch {current['leaderEpoch']}", "tone": "lead"})
    if not get("partitionMetadata.replicas"):
        tags.append({"text": "no partition metadata", "tone": "warn"})
    elif get("partitionMetadata.isr"):
        tags.append(f"its ISR {_ids(get('partitionMetadata.isr'))}")
    if b in current["isr"]:
        tags.append({"text": "in controller ISR", "tone": "good"})
    elif b in current.get("elr", []):
        tags.append({"text": "in ELR", "tone": "lead"})
    else:
        tags.append({"text": "out of controller ISR", "tone": "warn"})
    if b in current.get("lastKnownElr", []):
        tags.append("last known ELR")
    ap = get("pendingAlterPartition")
    if ap["phase"]:
        tags.append({"text": f"AlterPartition ISR {_ids(ap['isr'])}: {ap['phase']}", "tone": "lead"})
    log = get("partitionData.log")
    cells = []
    for offset, rec in enumerate(log):
        ack = rec["value"] in acked
        cells.append({"top": str(offset), "text": rec["value"], "color": rec["epoch"], "key": _key(rec), "tick": ack,
                      "hint": f"offset {offset}: value {rec['value']}, leader epoch {rec['epoch']}"
                              + (", acknowledged to the producer" if ack else "")})
    marks = [{"name": "HW", "at": get("partitionData.hwm")}, {"name": "LEO", "at": len(log)}]
    if role == "Leader" and get("partitionLeso") >= 0:
        marks.append({"name": "LESO", "at": get("partitionLeso")})
    return {"name": f"broker {b}", "tags": tags, "cells": cells, "marks": marks, "dim": status != "RUNNING"}


def _controller_lane(view: dict[str, Any], brokers: list[int]) -> dict[str, Any]:
    log = view["controller.metadataLog"]
    cells = []
    for offset, rec in enumerate(log):
        leader = "none" if rec["leader"] is None else rec["leader"]
        text = f"leader {leader}, leader epoch {rec['leaderEpoch']}, partition epoch {rec['partitionEpoch']}, " \
               f"ISR {_ids(rec['isr'])}"
        if "elr" in rec:
            text += f", ELR {_ids(rec['elr'])}, last known ELR {_ids(rec['lastKnownElr'])}"
        cells.append({"top": str(offset), "text": f"p{rec['partitionEpoch']}", "color": rec["leaderEpoch"],
                      "hint": f"PartitionChange {offset}: {text}"})
    marks = [{"name": f"b{b} applied", "at": view[f"brokerMetadataLog.{b}"]} for b in brokers]
    return {"name": "controller", "tags": ["metadata log (partition epochs)"], "cells": cells, "marks": marks}


def _in_flight(view: dict[str, Any], brokers: list[int]) -> tuple[list[Any], list[Any], list[Any]]:
    """(AlterPartition requests, fetches, what each leader knows of its followers)."""
    requests, fetches, known = [], [], []
    for b in brokers:
        ap = view[f"pendingAlterPartition.{b}"]
        if ap["phase"]:
            epochs = ", ".join(f"{m}@{e}" for m, e in ap["brokerEpochs"])
            requests.append({"text": f"{b} → controller: ISR {_ids(ap['isr'])} (broker epochs {epochs}), "
                                     f"{ap['phase']}", "tone": "lead"})
        for text in view[f"fetchesInFlight.{b}"]:
            fetches.append({"text": f"broker {b}: {text}", "tone": "lead"})
        if view[f"partitionStatus.{b}"] == "Leader":
            for peer, st in view[f"partitionReplicaState.{b}"].items():
                leo = "no fetch yet" if st["leo"] is None else f"LEO {st['leo']}"
                known.append(f"{b} knows {peer}: {leo}, broker epoch {st['brokerEpoch']}")
    return requests, fetches, known


def _focus(view: dict[str, Any], brokers: list[int], detail: str) -> dict[str, Any]:
    named: list[int] = []
    for group in _MEMBERS.findall(detail):
        named += [int(x) for x in group.replace(" ", "").split(",") if x]
    named += [int(x) for x in _LEADER.findall(detail)]
    committed = view["invConsumed"]
    keys, missing = [], []
    for lane, b in enumerate(brokers):
        if b not in named:
            continue
        log = view[f"partitionData.log.{b}"]
        for offset, rec in enumerate(committed):
            if offset < len(log) and log[offset] == rec:
                continue
            keys.append(_key(rec))
            where = "not on" if offset >= len(log) else f"diverged ({log[offset]['value']} there) on"
            missing.append({"lane": lane, "at": offset,
                            "text": f"committed value {rec['value']} (offset {offset}) {where} broker {b}"})
    return {"keys": list(dict.fromkeys(keys)), "offsets": [], "missing": missing}


def picture(view: dict[str, Any], detail: str = "", *, split_fetch: bool = False) -> dict[str, Any]:
    """The picture of one KRaft state from its ``state_view``; ``detail`` is the violation's text
    for the state where a property fails ('' elsewhere); ``split_fetch``: fetches can be in flight."""
    brokers = sorted({int(k.rsplit(".", 1)[1]) for k in view if k.startswith("brokerState.status.")})
    current = view["controller.metadataLog"][-1]
    acked = set(view["invPosAcked"])
    lanes = [_broker_lane(b, view, current, acked) for b in brokers]
    lanes.append(_controller_lane(view, brokers))
    leader = "none" if current["leader"] is None else current["leader"]
    partition = (f"leader {leader} · leader epoch {current['leaderEpoch']} · partition epoch "
                 f"{current['partitionEpoch']} · ISR {_ids(current['isr'])}")
    if "elr" in current:
        partition += f" · ELR {_ids(current['elr'])} · last known ELR {_ids(current['lastKnownElr'])}"
    requests, fetches, known = _in_flight(view, brokers)
    facts: list[dict[str, Any]] = [
        {"label": "controller", "value": partition},
        {"label": "AlterPartition in flight", "value": requests or ["none"]},
    ]
    if split_fetch:  # otherwise a fetch is one atomic step: nothing is ever in flight
        facts.append({"label": "fetches in flight", "value": fetches or ["none"]})
    facts.append({"label": "leader's view of followers", "value": known or ["no leader"]})
    sent, nacked = view["invSent"], view["invNegAcked"]
    producer = [f"sent {', '.join(sent) or 'nothing'}", f"acknowledged {', '.join(sorted(acked)) or 'nothing'}"]
    if nacked:
        producer.append({"text": f"failed {', '.join(nacked)}", "tone": "warn"})
    producer.append(f"true HW {view['invTrueHwm']}")
    facts.append({"label": "producer (ghost)", "value": producer})
    epochs = sorted({rec["epoch"] for b in brokers for rec in view[f"partitionData.log.{b}"]}
                    | {rec["leaderEpoch"] for rec in view["controller.metadataLog"]})
    out: dict[str, Any] = {"lanes": lanes, "facts": facts, "legend": {str(e): f"leader epoch {e}" for e in epochs}}
    if detail:
        out["focus"] = _focus(view, brokers, detail)
    return out
