"""A state as the spec's named variables, for trace diffs and ITF JSON.

The classic fields are shown as ``KafkaReplication.tla``'s nested variables; the option fields
follow, each under its row's ``view`` key and rendered by its row's ``show``
(``isrcheck.model.encoding.fields``), in table order.

Replica ids are shown 1..n (the spec's ``r1, r2, ...``); ``None`` leaders as ``None`` (JSON null),
``Nil`` epochs as -1 as in the spec; ISRs as sorted lists; records as ``{"id", "epoch"}``.
"""

from __future__ import annotations

from typing import Any

from .state import EPOCH, HW, ISR, LEADER, NEXT_RECORD_ID, Q_ISR, Q_LEADER, REQUESTS


class StateView:
    def __init__(self, tables: Any) -> None:
        self.tables = tables
        self.layout = tables.layout
        self.logs = tables.logs
        self.rows = tables.fields.rows

    def replica_id(self, index: int) -> int | None:
        return None if index < 0 else index + 1

    def isr(self, mask: int) -> list[int]:
        return [i + 1 for i in self.layout.members[mask]]

    def log(self, code: int) -> list[dict[str, int]]:
        logs = self.logs
        return [{"id": logs.record_id(r), "epoch": logs.record_epoch(r)} for r in logs.records[code]]

    def view(self, s: tuple) -> dict[str, Any]:
        lay = self.layout
        g = lay.g
        replica_log = {}
        replica_state = {}
        for i in lay.replicas:
            b = lay.base[i]
            replica_log[str(i + 1)] = self.log(s[b])
            replica_state[str(i + 1)] = {
                "hw": s[b + HW],
                "leaderEpoch": s[b + EPOCH],
                "leader": self.replica_id(s[b + LEADER]),
                "isr": self.isr(s[b + ISR]),
            }
        requests = [
            {"leaderEpoch": epoch, "leader": self.replica_id(leader), "isr": self.isr(isr)}
            for epoch, leader, isr in lay.requests(s)
        ]
        out = {
            "replicaLog": replica_log,
            "replicaState": replica_state,
            "nextRecordId": s[g + NEXT_RECORD_ID],
            "nextLeaderEpoch": len(s[g + REQUESTS]),
            "quorumState": {
                "leaderEpoch": len(s[g + REQUESTS]) - 1,
                "leader": self.replica_id(s[g + Q_LEADER]),
                "isr": self.isr(s[g + Q_ISR]),
            },
            "leaderAndIsrRequests": requests,
        }
        for field, i in self.rows:
            out[field.view] = field.show(self.tables, s, i)
        return out
