"""The generation's ``Next`` as one successor function, built once per configuration.

Every classic step (``ControllerElectLeader`` ... ``FollowerUpdateHighWatermark``) is written once,
in ``isrcheck.model.steps.described`` (what each models: ``isrcheck.model.steps.controller``,
``leader`` and ``follower``); its order there is ``NEXT_ORDER``, the one order their sections run
in. A generation's ``Next`` (``isrcheck.model.generations``) names which sections run. The function
is generated from the descriptions as straight-line source (``isrcheck.model.steps.staging``): the
generation's rules and the options that change a step are folded in when it is generated, so the
hot path tests nothing that is constant, and a replica's fields are constant indices. The steps
the options add (``isrcheck.model.steps.failures``, ``consumers``) are described the same way and
follow as sections of the same function.

The successors and their order are exactly those of the hand-written functions this replaced, in
every generation and option (``tests/model/test_successor_digest.py`` holds digests recorded
before).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..generations import HEAD
from .described import STEPS
from .staging import generated_successors

# Every step a generation's Next may name, in the one order their sections run (the order of
# the descriptions): each generation's Next is this order with some steps left out.
NEXT_ORDER = tuple(STEPS)
assert NEXT_ORDER[:len(HEAD)] == HEAD, "the descriptions' order starts with generations.HEAD"

Successors = Callable[[tuple], list]


def next_successors(t: Any) -> Successors:
    """``successors(state)``: every (action, next state) of the generation's ``Next``, in its order,
    then those of the options' steps (``isrcheck.model.steps.failures``, ``consumers``)."""
    gen = t.generation
    names = tuple(gen.next)
    if tuple(name for name in NEXT_ORDER if name in names) != names:
        raise ValueError(f"generation {gen.name}: Next {names} is not in the order of NEXT_ORDER {NEXT_ORDER}")
    return generated_successors(t)
