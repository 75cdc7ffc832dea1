"""Two processes and a lock: the liveness example of docs/liveness.md.

Process A loops forever; process B waits to enter its critical section once. Which fairness
makes B eventually enter depends on whether A's loop takes the lock:

- ``variant="weak"``: A loops without touching the lock, so B's ``enter`` stays enabled the whole
  time. Weak fairness of ``enter`` is enough; without fairness B starves (A loops, or nothing
  happens at all: stuttering).
- ``variant="strong"``: A takes and releases the lock on every turn, so B's ``enter`` is enabled
  only while A is outside, infinitely often but never continuously. Weak fairness lets B starve;
  strong fairness of ``enter`` does not.

``declared_fairness`` picks what the model declares: none, weak (every family weakly fair), strong
(``enter`` strongly fair, A's steps weakly fair), or a-only (only A's steps fair: B may be ignored).

    isrcheck check docs/examples/mutex.py --variant strong --declared-fairness weak   # B starves: a lasso
"""

from __future__ import annotations

from typing import Literal

from isrcheck import Property


class Mutex:
    def __init__(self, variant: str, fairness: str) -> None:
        self.variant = variant
        self._fairness = fairness

    def init_states(self):
        return [("idle", "waiting")]

    def successors(self, state):
        a, b = state
        lock_free = a == "idle" or self.variant == "weak"
        out = []
        if a == "idle" and (self.variant == "weak" or b != "critical"):
            out.append(("take(A)" if self.variant == "strong" else "think(A)", ("busy", b)))
        if a == "busy":
            out.append(("release(A)" if self.variant == "strong" else "rest(A)", ("idle", b)))
        if b == "waiting" and lock_free:
            out.append(("enter(B)", (a, "critical")))
        return out

    def properties(self):
        return [
            Property.eventually("BEnters", lambda s: s[1] == "critical", doc="B eventually enters"),
            Property.leads_to("WaitingLeadsToCritical", lambda s: s[1] == "waiting", lambda s: s[1] == "critical",
                              doc="waiting ~> critical"),
        ]

    def fairness(self):
        a_steps = ("take", "release") if self.variant == "strong" else ("think", "rest")
        if self._fairness == "none":
            return {}
        if self._fairness == "a-only":
            return dict.fromkeys(a_steps, "weak")
        table = {**dict.fromkeys(a_steps, "weak"), "enter": "weak"}
        if self._fairness == "strong":
            table["enter"] = "strong"
        return table

    def state_view(self, state):
        return {"A": state[0], "B": state[1]}


def make_model(*, variant: Literal["weak", "strong"] = "strong",
               declared_fairness: Literal["none", "weak", "strong", "a-only"] = "strong") -> Mutex:
    return Mutex(variant, declared_fairness)
