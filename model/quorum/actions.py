"""The quorum's steps as small frozen values whose ``repr`` reads like KRaft.tla's actions.

One type for every step: ``name`` is the spec's action, ``server`` the server taking it (1..n),
``peer`` the other end of the message it handles or sends (0: none), ``epoch`` the epoch the
message or election carries, ``value`` a client value's index, ``detail`` a few words more
(granted, the fetch offset, the truncation point). ``RequestVote(1, epoch=2)``,
``HandleRequestVoteRequest(2 <- 1, epoch=2, granted)``.

Abstracted away: nothing; these are labels, the steps are in ``isrcheck.model.quorum.steps``.
"""

from __future__ import annotations

from typing import NamedTuple

VALUES = "ABCDEFGH"


class QuorumAction(NamedTuple):
    """A tuple led by the step's name, so that the Hypothesis bridge draws each step as a kind of
    its own (``isrcheck.explorer.stateful.action_kind``) and a random walk is not drowned in fetches."""

    name: str
    server: int
    peer: int = 0
    epoch: int = 0
    value: int = -1
    detail: str = ""

    def __repr__(self) -> str:
        who = f"{self.server} <- {self.peer}" if self.peer else str(self.server)
        parts = [who]
        if self.epoch:
            parts.append(f"epoch={self.epoch}")
        if self.value >= 0:
            parts.append(f"value={VALUES[self.value]}")
        if self.detail:
            parts.append(self.detail)
        return f"{self.name}({', '.join(parts)})"
