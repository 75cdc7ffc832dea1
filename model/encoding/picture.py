"""The replication model's state drawn as Kafka's own diagrams draw it: the picture the HTML trace
report shows (``isrcheck.explorer.contract``'s optional ``picture`` hook;
``isrcheck.explorer.traces.html.report`` renders it).

Built from the state's named variables (``state_view``), never from the encoded tuple, so it reads
the same names a trace prints and does not depend on the state layout. One lane per replica: its
log as cells (offset above, record id inside, leader epoch as the cell's colour), its high
watermark (HW), log end offset (LEO) and, with power failures, flushed offset as marks between
cells; tags say whether it leads or follows and in which leader epoch, the ISR it caches, whether
the controller counts it in the ISR, and whether it is stopped. A consumers lane shows the record
served at each offset (``consumer_reads``). Facts under the lanes: the controller's leader, epoch
and ISR, the LeaderAndIsr requests with the replicas that have not yet applied them (requests in
flight), acknowledged records.

A violation's detail (the property's ``describe`` text) names records (``record 3``,
``record(s) 0, 1``) and offsets (``offset 0``); the picture of the failing state marks each named
record where some replica lacks it (at the offset a replica holding it has it: lost when the
replica's log ends before and the controller counts it (leader or ISR), missing when it does not,
diverged when another record sits there) and each named offset, and
the report follows the named records through every step. Anything the detail does not name as a
record or offset is not marked (the text is shown in full beside the picture).
"""

from __future__ import annotations

import re
from typing import Any

_RECORDS = re.compile(r"records?(?:\(s\))?\s+(\d+(?:\s*,\s*\d+)*)")
_OFFSETS = re.compile(r"offsets?\s+(\d+)")


def _ids(members: list[int]) -> str:
    return "{" + ",".join(str(m) for m in members) + "}"


def named_in(detail: str) -> tuple[list[int], list[int]]:
    """(record ids, offsets) a property's detail names, in order of first mention."""
    records: list[int] = []
    for group in _RECORDS.findall(detail):
        for part in group.split(","):
            if int(part) not in records:
                records.append(int(part))
    offsets = list(dict.fromkeys(int(o) for o in _OFFSETS.findall(detail)))
    return records, offsets


def _lane(rid: int, log: list[dict[str, int]], st: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    quorum = view["quorumState"]
    stopped = rid in (view.get("stoppedBrokers") or [])
    acked = set(view.get("ackedRecords") or [])
    tags: list[Any] = []
    if stopped:
        tags.append({"text": "stopped", "tone": "bad"})
    epoch = st["leaderEpoch"]
    if st["leader"] == rid:
        tags.append({"text": f"leader · epoch {epoch}", "tone": "lead"})
    elif st["leader"] is not None:
        tags.append(f"follower of {st['leader']} · epoch {epoch}")
    elif epoch >= 0:
        tags.append(f"no leader · epoch {epoch}")
    else:
        tags.append("no epoch yet")
    if st["isr"]:
        tags.append(f"its ISR {_ids(st['isr'])}")
    if rid in quorum["isr"]:
        tags.append({"text": "in controller ISR", "tone": "good"})
    else:
        tags.append({"text": "out of controller ISR", "tone": "warn"})
    racks = view.get("racks") or {}
    if str(rid) in racks:
        tags.append(racks[str(rid)])
    cells = []
    for offset, rec in enumerate(log):
        ack = rec["id"] in acked
        cells.append({
            "top": str(offset),
            "text": str(rec["id"]),
            "color": rec["epoch"],
            "key": f"record {rec['id']}",
            "tick": ack,
            "hint": f"offset {offset}: record {rec['id']}, leader epoch {rec['epoch']}" + (
                ", acknowledged to the producer" if ack else ""),
        })
    marks = [{"name": "HW", "at": st["hw"]}, {"name": "LEO", "at": len(log)}]
    flushed = view.get("flushedOffset") or {}
    if str(rid) in flushed:
        marks.append({"name": "flushed", "at": flushed[str(rid)]})
    return {"name": f"replica {rid}", "tags": tags, "cells": cells, "marks": marks, "dim": stopped}


def _consumers_lane(served: dict[str, Any]) -> dict[str, Any]:
    cells = []
    for offset, value in sorted(served.items(), key=lambda kv: int(kv[0])):
        if value is None:
            cells.append({"top": offset, "text": "", "color": None, "hint": f"offset {offset}: nothing served yet"})
        elif value == "CONFLICT":
            cells.append({"top": offset, "text": "≠", "color": None, "tone": "bad",
                          "hint": f"offset {offset}: consumers were served two different records"})
        else:
            cells.append({"top": offset, "text": str(value), "color": None, "key": f"record {value}",
                          "hint": f"offset {offset}: consumers were served record {value}"})
    return {"name": "consumers", "tags": ["served per offset"], "cells": cells, "marks": []}


def _requests(view: dict[str, Any]) -> list[Any]:
    """Each LeaderAndIsr request with the running replicas that have not yet applied its epoch."""
    stopped = set(view.get("stoppedBrokers") or [])
    epochs = {int(r): st["leaderEpoch"] for r, st in view["replicaState"].items()}
    out: list[Any] = []
    for req in view["leaderAndIsrRequests"]:
        pending = [r for r, e in epochs.items() if e < req["leaderEpoch"] and r not in stopped]
        leader = "none" if req["leader"] is None else req["leader"]
        text = f"epoch {req['leaderEpoch']}: leader {leader}, ISR {_ids(req['isr'])}"
        if pending:
            out.append({"text": f"{text} → pending at {', '.join(map(str, pending))}", "tone": "lead"})
        else:
            out.append({"text": f"{text} (no replica behind it)", "tone": "dim"})
    return out


def _focus(view: dict[str, Any], detail: str) -> dict[str, Any]:
    records, offsets = named_in(detail)
    logs = {int(r): log for r, log in view["replicaLog"].items()}
    quorum = view["quorumState"]
    counted = set(quorum["isr"]) | {quorum["leader"]}  # the replicas a committed record must be on
    missing = []
    for rec in records:
        held = [off for log in logs.values() for off, e in enumerate(log) if e["id"] == rec]
        for lane, (rid, log) in enumerate(logs.items()):
            if any(e["id"] == rec for e in log):
                continue
            at = held[0] if held else None
            if at is not None and at < len(log):  # diverged: another record sits where this one belongs
                text = f"replica {rid} has record {log[at]['id']} at offset {at}, not record {rec}"
            elif rid in counted:
                text = f"record {rec} lost at replica {rid}"
            else:  # outside the controller's ISR and not leading: its gap loses nothing (yet)
                text = f"record {rec} missing at replica {rid}"
            missing.append({"lane": lane, "at": at, "text": text})
    return {"keys": [f"record {r}" for r in records], "offsets": offsets, "missing": missing}


def picture(view: dict[str, Any], detail: str = "") -> dict[str, Any]:
    """The picture of one state from its ``state_view``; ``detail`` is the violation's text for the
    state where a property fails ('' elsewhere)."""
    lanes = [_lane(int(r), log, view["replicaState"][r], view) for r, log in view["replicaLog"].items()]
    if view.get("served"):
        lanes.append(_consumers_lane(view["served"]))
    quorum = view["quorumState"]
    leader = "none" if quorum["leader"] is None else quorum["leader"]
    controller = f"leader {leader} · epoch {quorum['leaderEpoch']} · ISR {_ids(quorum['isr'])}"
    facts: list[dict[str, Any]] = [
        {"label": "controller", "value": controller},
        {"label": "LeaderAndIsr requests", "value": _requests(view) or ["none sent yet"]},
    ]
    if "ackedRecords" in view:
        acked = view["ackedRecords"]
        facts.append({"label": "acknowledged records", "value": ", ".join(map(str, acked)) if acked else "none"})
    if view.get("azFailures"):
        facts.append({"label": "zone failures", "value": str(view["azFailures"])})
    epochs = sorted({rec["epoch"] for log in view["replicaLog"].values() for rec in log})
    out: dict[str, Any] = {
        "lanes": lanes,
        "facts": facts,
        "legend": {str(e): f"leader epoch {e}" for e in epochs},
    }
    if detail:
        out["focus"] = _focus(view, detail)
    return out
