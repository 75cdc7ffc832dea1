"""The KRaft controller's partition logic: partition changes, fencing, election, the ELR.

Modelled (``v3_5_functions.tla`` / ``kip_966_functions.tla``): ``ApplyPartitionChange`` (append a
PartitionChange record; the controller's partition state is the log's last record; KIP-966 keeps
``last_known_elr``), ``HandleBrokerFenced`` / ``HandleBrokerUnfenced`` / ``ProcessUncleanBroker``,
``MaybeUpdatePartitionOnBrokerChange`` (keep the leader if it may stay, else elect: 3.5 any unfenced
ISR member; KIP-966 any ISR member, then any unfenced ELR member, which moves into the ISR; else
NoLeader), and KIP-966's ``UpdateElr``.

Every function takes ``s``, a list copy of the state, changes it in place and, where the spec
chooses a leader non-deterministically, yields one list per choice (with the elected broker).

Abstracted away: the controller's own Raft quorum (as in the spec), reassignment (adding/removing).
"""

from __future__ import annotations

from collections.abc import Iterator

from .config import KraftConfig
from .fields import C_UNFENCED, METADATA_LOG, NIL, R_ELR, R_ISR, R_LAST_KNOWN_ELR, R_LEADER, R_LEADER_EPOCH, Layout

# (state list, elected): the broker index elected, "none" for NoLeader, None when the leader is unchanged.
Choice = tuple[list, object]


class Controller:
    def __init__(self, config: KraftConfig, lay: Layout) -> None:
        self.lay = lay
        self.min_isr = config.min_isr
        self.elr = config.gen.elr
        self.floor_one = config.gen.isr_floor_one
        self.log_i = lay.g + METADATA_LOG
        self._records: dict[tuple, tuple] = {}

    def record(self, leader: int, leader_epoch: int, partition_epoch: int, isr: int, elr: int, lkelr: int) -> tuple:
        """A PartitionChange record, interned so that equal records share one object in memory."""
        r = (leader, leader_epoch, partition_epoch, isr, elr, lkelr)
        return self._records.setdefault(r, r)

    def unfenced(self, s) -> int:
        lay = self.lay
        return sum(lay.bit[b] for b in lay.brokers if s[lay.base[b] + C_UNFENCED])

    def apply_change(self, s: list, leader: int, isr: int, elr: int, leader_epoch: int) -> None:
        """``ApplyPartitionChange``: the next record, partition epoch + 1."""
        log = s[self.log_i]
        cur = log[-1]
        if not self.elr or self.lay.size[isr] >= self.min_isr:
            lkelr = 0
        else:
            lkelr = cur[R_LAST_KNOWN_ELR] | (cur[R_ELR] & ~elr)
        s[self.log_i] = log + (self.record(leader, leader_epoch, cur[2] + 1, isr, elr, lkelr),)

    def update_elr(self, cur: tuple, proposed_isr: int) -> int:
        """KIP-966 ``UpdateElr``: empty once the ISR reaches MinISR, else the ELR gains the members the
        ISR loses (safe: the HW does not advance while the ISR is below MinISR)."""
        if self.lay.size[proposed_isr] >= self.min_isr:
            return 0
        return cur[R_ELR] | (cur[R_ISR] & ~proposed_isr)

    def on_broker_change(self, s: list, new_isr: int, new_elr: int, unfenced: int) -> Iterator[Choice]:
        """``MaybeUpdatePartitionOnBrokerChange``."""
        cur = s[self.log_i][-1]
        leader, le = cur[R_LEADER], cur[R_LEADER_EPOCH]
        members = self.lay.members
        if not self.elr:
            candidates = [c for c in members[new_isr] if unfenced >> c & 1]
            stays = (leader == NIL and not candidates) or (
                leader != NIL and new_isr >> leader & 1 and unfenced >> leader & 1)
        else:
            candidates = list(members[new_isr]) or [c for c in members[new_elr] if unfenced >> c & 1]
            stays = (leader == NIL and not candidates) or (leader != NIL and new_isr >> leader & 1)
        if stays:
            if new_isr != cur[R_ISR] or new_elr != cur[R_ELR]:
                self.apply_change(s, leader, new_isr, new_elr, le)
            yield s, None
        elif candidates:
            bit = self.lay.bit
            for c in candidates:
                t = list(s)
                if new_isr >> c & 1:
                    self.apply_change(t, c, new_isr, new_elr, le + 1)
                else:  # KIP-966: elected from the ELR, it moves into the ISR
                    self.apply_change(t, c, new_isr | bit[c], new_elr & ~bit[c], le + 1)
                yield t, c
        else:
            self.apply_change(s, NIL, new_isr, new_elr, le + 1)
            yield s, "none"

    def broker_fenced(self, s: list, b: int) -> Iterator[Choice]:
        """``HandleBrokerFenced``: out of the ISR (3.5: unless it is the last member; KIP-966: the ELR
        gains it while the ISR is below MinISR), then maybe a new leader."""
        cur = s[self.log_i][-1]
        unfenced = self.unfenced(s) & ~self.lay.bit[b]
        s[self.lay.base[b] + C_UNFENCED] = 0
        isr = cur[R_ISR]
        if self.floor_one and self.lay.size[isr] == 1:
            new_isr = isr  # "the ISR cannot drop below 1": the last replica standing
        else:
            new_isr = isr & ~self.lay.bit[b]
        new_elr = self.update_elr(cur, new_isr) if self.elr else 0
        return self.on_broker_change(s, new_isr, new_elr, unfenced)

    def broker_unfenced(self, s: list, b: int) -> Iterator[Choice]:
        """``HandleBrokerUnfenced``: the ISR is unchanged; a leaderless partition may get a leader."""
        cur = s[self.log_i][-1]
        unfenced = self.unfenced(s) | self.lay.bit[b]
        s[self.lay.base[b] + C_UNFENCED] = 1
        if cur[R_LEADER] == NIL:
            return self.on_broker_change(s, cur[R_ISR], cur[R_ELR], unfenced)
        return iter(((s, None),))

    def unclean_broker(self, s: list, b: int) -> Iterator[Choice]:
        """KIP-966 ``ProcessUncleanBroker``: a broker registering with epoch 0 may have lost data, so it
        leaves the ISR and the ELR (it rejoins the ISR only by catching up with a leader)."""
        cur = s[self.log_i][-1]
        unfenced = self.unfenced(s) | self.lay.bit[b]
        s[self.lay.base[b] + C_UNFENCED] = 1
        drop = ~self.lay.bit[b]
        return self.on_broker_change(s, cur[R_ISR] & drop, cur[R_ELR] & drop, unfenced)
