"""The water-jug puzzle of Die Hard 3 as an isrcheck model: a 3-gallon and a 5-gallon jug, a tap
and a drain; can we measure exactly 4 gallons? The "invariant" ``BigJugNeverHolds4`` is false on
purpose, so the checker's counterexample *is* the shortest solution.

Run it:  isrcheck check docs/examples/jugs.py:make_model
(add ``--html jugs.html`` for a page that draws each jug with ``picture``, the optional hook).
"""

from __future__ import annotations

from dataclasses import dataclass

from isrcheck import Property


@dataclass(frozen=True)
class Fill:
    jug: str


@dataclass(frozen=True)
class Empty:
    jug: str


@dataclass(frozen=True)
class Pour:
    source: str
    target: str


class Jugs:
    """State: (small, big), gallons in each jug."""

    def __init__(self, small: int = 3, big: int = 5, goal: int = 4):
        self.cap = {"small": small, "big": big}
        self.goal = goal

    def init_states(self):
        return [(0, 0)]

    def successors(self, state):
        small, big = state
        cs, cb = self.cap["small"], self.cap["big"]
        yield Fill("small"), (cs, big)
        yield Fill("big"), (small, cb)
        yield Empty("small"), (0, big)
        yield Empty("big"), (small, 0)
        moved = min(small, cb - big)
        yield Pour("small", "big"), (small - moved, big + moved)
        moved = min(big, cs - small)
        yield Pour("big", "small"), (small + moved, big - moved)

    def properties(self):
        return [
            Property.always(
                "BigJugNeverHolds4",
                lambda s: s[1] != self.goal,
                describe=lambda s: f"big jug holds {s[1]} gallons",
            ),
            Property.sometimes("BothJugsFull", lambda s: s == (self.cap["small"], self.cap["big"])),
        ]

    def state_view(self, state):
        return {"small": state[0], "big": state[1]}

    def picture(self, state):
        """Optional, for the HTML report: each jug as a lane of gallons, a mark at its brim."""
        return {"lanes": [
            {"name": f"{jug} jug", "tags": [f"{gallons} of {self.cap[jug]} gallons"],
             "cells": [{"text": "~", "color": 0} for _ in range(gallons)],
             "marks": [{"name": "brim", "at": self.cap[jug]}]}
            for jug, gallons in zip(("small", "big"), state, strict=True)
        ]}


def make_model(*, small: int = 3, big: int = 5, goal: int = 4) -> Jugs:
    if small < 1 or big < 1:
        raise ValueError(f"jug capacities must be positive (got small={small}, big={big})")
    return Jugs(small, big, goal)
