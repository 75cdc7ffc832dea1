"""The durability model's state as named variables: the classic spec's variables plus the broker
status, the stop count, each replica's flushed offset and the acknowledged records."""

from __future__ import annotations

from typing import Any

from .view import StateView


class DurabilityView(StateView):
    def __init__(self, tables) -> None:
        super().__init__(tables)
        self.ext = tables.ext

    def view(self, s: tuple) -> dict[str, Any]:
        out = super().view(s)
        ext = self.ext
        n = self.layout.n
        if ext.dead >= 0:
            out["stoppedBrokers"] = self.isr(s[ext.dead])
            out["stops"] = s[ext.crashes]
        if ext.flushed >= 0:
            out["flushedOffset"] = {str(i + 1): s[ext.flushed + i] for i in range(n)}
        if ext.acked >= 0:
            out["ackedRecords"] = [i for i in range(s[ext.acked].bit_length()) if s[ext.acked] >> i & 1]
        return out
