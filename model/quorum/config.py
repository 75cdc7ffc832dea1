"""The constants of KRaft.tla (Vanlightly/raft-tlaplus, ``specifications/pull-raft``), validated.

``voters`` is |Server|, ``values`` is |Value|, ``max_elections`` is MaxElections and
``max_restarts`` is MaxRestarts; ``restart`` chooses the spec's restart or one into the persisted
election state (``QuorumSteps.restart`` in ``isrcheck.model.quorum.steps``). Every bound is
checked here so that an impossible one is refused with the reason and the fix before any state is
built.

Abstracted away: nothing; this is the configuration only.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_VOTERS = 5  # server sets are bit masks and a vote count is a majority of them; 5 is already far past TLC
MAX_VALUES = 8  # values are shown as letters A..H
RESTARTS = ("spec", "persisted")  # the one declaration the factory's Literal and the messages read


@dataclass(frozen=True)
class QuorumConfig:
    voters: int = 3
    values: int = 1
    max_elections: int = 1
    max_restarts: int = 0
    restart: str = "spec"
    pre_vote: bool = False  # KIP-996 (isrcheck.model.quorum.prevote): timeouts ask for pre-votes first
    init_leader: bool = False  # kraft/kip_996's Init: server 1 already leads epoch 1, the others follow it

    def validate(self) -> None:
        if not 1 <= self.voters <= MAX_VOTERS:
            raise ValueError(f"voters={self.voters}: the quorum has 1 to {MAX_VOTERS} voters; pass --voters 3 "
                             "(the specs' configuration)")
        if not 1 <= self.values <= MAX_VALUES:
            raise ValueError(f"values={self.values}: clients write 1 to {MAX_VALUES} values; pass --values 1")
        if self.max_elections < 0:
            raise ValueError(f"max_elections={self.max_elections}: give 0 or more (0: no leader is ever elected)")
        if self.max_restarts < 0:
            raise ValueError(f"max_crashes={self.max_restarts}: give 0 or more")
        if self.restart not in RESTARTS:
            raise ValueError(f"restart={self.restart!r}: choose {' or '.join(RESTARTS)}")
        if self.restart != "spec" and not self.max_restarts:
            raise ValueError(f"restart={self.restart!r} has no effect with max_crashes=0: set max_crashes >= 1")
