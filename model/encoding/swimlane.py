"""One step of the classic model as an event of a space-time (swimlane) diagram: which lane acts
(a replica, or the controller) and which messages go from one lane to another.

The HTML report draws a whole trace with one lane per replica and one for the controller, steps
down the page (``isrcheck.explorer.contract``'s optional ``swimlane`` hook). A LeaderAndIsr request
is sent when the controller's list of requests grows and received by the step that applies its
epoch (BecomeLeader, BecomeFollower...), so its arrow goes from the row that sent it to the row
that received it, possibly many steps later. A fetch is one step in the model (request and
response together), drawn as an arrow in its row from the leader to the follower with what it
carried. The ISR a leader changes goes to ZooKeeper, drawn as an arrow to the controller.

Built from the states' named variables (``state_view``) and the action's fields, as the picture is.
"""

from __future__ import annotations

from typing import Any

CONTROLLER = "controller"


def _replica(r: int | None) -> str:
    return f"replica {r}"


def _ids(members: list[int]) -> str:
    return "{" + ",".join(str(m) for m in members) + "}"


def _sent_requests(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, str]]:
    """The LeaderAndIsr requests the step added, as messages from the controller."""
    out = []
    for req in after["leaderAndIsrRequests"][len(before["leaderAndIsrRequests"]):]:
        leader = "none" if req["leader"] is None else req["leader"]
        out.append({"id": f"LeaderAndIsr {req['leaderEpoch']}", "from": CONTROLLER,
                    "label": f"LeaderAndIsr e{req['leaderEpoch']} leader {leader} ISR {_ids(req['isr'])}"})
    return out


def event(action: Any, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The swimlane event of ``action`` taking state ``before`` to ``after`` (both ``state_view``)."""
    name = type(action).__name__
    sends = _sent_requests(before, after)
    out: dict[str, Any] = {"lane": CONTROLLER, "label": name, "send": sends, "receive": [], "arrows": []}
    # Each arm below names the lane that acts; the controller's own steps keep the default.
    if name in ("BecomeLeader", "BecomeFollower", "BecomeFollowerAndTruncate"):
        out["lane"] = _replica(action.replica)
        out["receive"] = [f"LeaderAndIsr {action.epoch}"]
        if name == "BecomeFollowerAndTruncate":
            out["label"] = f"{name} to {action.truncate_to}"
    elif name == "FollowerReplicate":
        out["lane"] = _replica(action.follower)
        rec = after["replicaLog"][str(action.follower)][action.offset]
        out["arrows"] = [{"from": _replica(action.leader), "to": _replica(action.follower),
                          "label": f"fetch: record {rec['id']} @{action.offset}"}]
    elif name in ("FollowerUpdateHighWatermark", "FollowerTruncate"):
        out["lane"] = _replica(action.follower)
        what = f"HW {action.hw}" if name == "FollowerUpdateHighWatermark" else f"truncate to {action.truncate_to}"
        out["arrows"] = [{"from": _replica(action.leader), "to": _replica(action.follower), "label": f"fetch: {what}"}]
    elif name in ("LeaderShrinkIsr", "LeaderExpandIsr"):
        out["lane"] = _replica(action.leader)
        out["arrows"] = [{"from": _replica(action.leader), "to": CONTROLLER,
                          "label": f"ISR {_ids(after['quorumState']['isr'])}"}]
        out["label"] = f"{name} {action.replica}"
    elif name == "LeaderWrite":
        out["lane"] = _replica(action.leader)
        out["label"] = f"write record {action.record_id} @{action.offset}"
    elif name == "LeaderIncHighWatermark":
        out["lane"] = _replica(action.leader)
        out["label"] = f"HW {action.hw}"
    elif name in ("BrokerCrash", "BrokerRestart", "FlushLog", "ControlledShutdown", "ConsumerFetch"):
        out["lane"] = _replica(action.replica)
        if name == "BrokerCrash":
            out["label"] = "crash (power failure)" if action.lost_unflushed else "crash"
        elif name == "ConsumerFetch":
            out["label"] = f"serves record {action.record_id} @{action.offset}"
    elif name == "ControllerElectLeader":
        out["label"] = f"elect {action.leader} (e{action.epoch})"
    elif name == "UncleanLeaderElection":
        out["label"] = f"elect {action.leader} uncleanly (e{action.epoch})"
    elif name == "ControllerShrinkIsr":
        out["label"] = f"ISR without {action.replica}"
    return out


def lanes(replicas: int) -> list[str]:
    return [_replica(r) for r in range(1, replicas + 1)] + [CONTROLLER]
