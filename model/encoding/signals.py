"""Operator signals for every state of a trace: what a Kafka operator's dashboard shows.

Kafka exposes, per partition, ``UnderReplicatedPartitions`` (ISR smaller than the replica set,
``ReplicaManager``), the ISR size (``kafka.cluster:type=Partition,name=InSyncReplicasCount``), who
leads (``LeaderCount`` per broker; the controller's partition state) and each follower's lag in
records (``kafka.server:type=FetcherLagMetrics,name=ConsumerLag``: leader log end offset minus the
follower's). They are derived from the state (the model's optional ``signals(state)``, read through
``isrcheck.explorer.contract.signals``), never part of it, so distinct-state counts do not change.

- ``leader``: the controller's leader (the quorum leader); ``awaiting LeaderAndIsr`` is shown while it has
  not yet adopted the current leader epoch: the controller's LeaderAndIsr request has not reached it
  (delivery is a step of its own, so this lasts as long as the trace leaves the request in flight),
  and it serves no request until it does;
- ``ISR``: quorum ISR size / replication factor; ``under-replicated`` when smaller;
- ``lag``: per follower of the quorum leader, leader log end offset minus the follower's, for the
  followers at or behind the leader's log end; ``ahead``: the followers whose log is longer than
  the leader's, by how many records (records the leader lacks: the follower will truncate them);
- ``stopped`` (durability options): brokers that are down; ``offline`` when no leader serves.
"""

from __future__ import annotations

from typing import Any

from .state import EPOCH, LEADER, Q_ISR, Q_LEADER, REQUESTS


class Signals:
    def __init__(self, tables: Any) -> None:
        self.n = tables.layout.n
        self.g = tables.layout.g
        self.base = tables.layout.base
        self.members = tables.layout.members
        self.length = tables.logs.length
        self.dead_i = tables.fields.dead  # the ``stopped`` signal's field, -1 without stops

    def __call__(self, s: tuple) -> dict[str, Any]:
        g, base, length = self.g, self.base, self.length
        leader = s[g + Q_LEADER]
        isr = s[g + Q_ISR]
        size = len(self.members[isr])
        out: dict[str, Any] = {"leader": None if leader < 0 else leader + 1}
        serving = leader >= 0 and s[base[leader] + LEADER] == leader and (
            s[base[leader] + EPOCH] == len(s[g + REQUESTS]) - 1)
        out["awaiting LeaderAndIsr"] = leader >= 0 and not serving
        out["offline"] = leader < 0
        out["ISR"] = f"{size}/{self.n}"
        out["under-replicated"] = size < self.n
        if self.dead_i >= 0:
            out["stopped"] = [r + 1 for r in self.members[s[self.dead_i]]]
        lag, ahead = {}, {}
        if leader >= 0:
            end = length[s[base[leader]]]
            for r in range(self.n):
                if r != leader:
                    behind = end - length[s[base[r]]]
                    if behind >= 0:
                        lag[f"r{r + 1}"] = behind
                    else:
                        ahead[f"r{r + 1}"] = -behind
        out["lag"] = lag
        if ahead:
            out["ahead"] = ahead
        return out
