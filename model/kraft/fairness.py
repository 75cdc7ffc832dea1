"""Which KRaft steps are fairly scheduled, for liveness (``KraftModel.fairness`` and
``action_family``; ``isrcheck.explorer.liveness``), as the specs' ``Liveness`` formula states it.

An action's family is its step name and the broker that takes it (``Fetch b2``), so weak fairness
is per broker, as the specs' ``\\A b \\in Brokers : WF_vars(A(b))``. Weakly fair, the specs'
list: BrokerStart, ReceiveBrokerRegResponse, ReceiveMetadataUpdate, SendAlterPartitionRequest,
ReceiveAlterPartitionResponse, the fetch (atomic: ``Fetch`` of the follower; split: the specs'
SendFetchRequest, ReceiveFetchRequest, ReceiveFetchResponse), ReceiveBrokerRegRequest,
ReceiveAlterPartitionRequest and UnfenceBroker. Not fair, the specs' perturbations: producer
writes, both shutdowns, FenceBroker (a broker may be fenced or not, and a fenced one is not fenced
again by any fair step), and PerformPartitionReassignment (an operator's request; its family is
its name alone, as no broker takes it).

Abstracted away: the specs' two anti-cycle guards (docs/kraft.md, "How this relates to the
specs"): a leader may resend an AlterPartition request that is rejected again, for ever, which is a
fair cycle the specs rule out; a liveness property that such a cycle would violate says so in its
lasso.
"""

from __future__ import annotations

from typing import Any

# The field of each action that names the broker taking the step.
ACTOR = {
    "BrokerStart": "broker",
    "ReceiveBrokerRegRequest": "broker",
    "ReceiveBrokerRegResponse": "broker",
    "UnfenceBroker": "broker",
    "FenceBroker": "broker",
    "ReceiveMetadataUpdate": "broker",
    "SendAlterPartitionRequest": "leader",
    "ReceiveAlterPartitionRequest": "leader",
    "ReceiveAlterPartitionResponse": "leader",
    "Fetch": "follower",
    "WriteRecordToLeader": "leader",
    "Shutdown": "broker",
    "SendFetchRequest": "follower",
    "ReceiveFetchRequest": "broker",
    "ReceiveFetchResponse": "follower",
}
WEAK = ("BrokerStart", "ReceiveBrokerRegResponse", "ReceiveMetadataUpdate", "SendAlterPartitionRequest",
        "ReceiveAlterPartitionResponse", "Fetch", "SendFetchRequest", "ReceiveFetchRequest", "ReceiveFetchResponse",
        "ReceiveBrokerRegRequest", "ReceiveAlterPartitionRequest", "UnfenceBroker")


def action_family(action: Any) -> str:
    name = type(action).__name__
    if name not in ACTOR:  # a controller step no broker takes: PerformPartitionReassignment (not fair)
        return name
    return f"{name} b{getattr(action, ACTOR[name])}"


def fairness_table(brokers: int) -> dict[str, str]:
    return {f"{step} b{b}": "weak" for step in WEAK for b in range(1, brokers + 1)}
