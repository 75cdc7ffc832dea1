"""The generation's ``Next`` as one successor function, built once per configuration.

Every classic step (``ControllerElectLeader`` ... ``FollowerUpdateHighWatermark``; what each models
is in the docstrings of ``isrcheck.model.steps.controller``, ``leader`` and ``follower``) is one section of
``successors`` below, in ``NEXT_ORDER``. A generation's ``Next`` (``isrcheck.model.generations``) names which
sections run; the rules it reads (``isr_rule``, ``fenced``, ``truncate_to``...) and the options
that change a step (stopped brokers, acks, flushed offsets) are looked up when the function is
built, so the hot path tests build-time booleans only. The steps the options add
(``isrcheck.model.steps.failures``, ``consumers``) follow as closures of their own.

Why one function (issue 15): the steps were closures called one after another on every state,
each reading the same fields again and testing its own enabling condition. Here what several
steps need is read once per state: the newest request epoch and whether any replica is behind it
(``BecomeLeader``, ``BecomeFollowerAndTruncateTo`` and ``BecomeFollower`` are disabled in most
states: every replica has seen the newest request), the true leader (``LeaderExpandIsr``,
``LeaderShrinkIsr``), the running replicas, and the fetches that diverge (``FollowerTruncate``,
``FollowerUpdateHighWatermark``); next states are built by assigning into a list, which costs
about half of slicing and concatenating tuples. The successors and their order are exactly those
the per-step closures gave, in every generation and option (``tests/model/test_successor_digest.py``
holds digests recorded before the change).
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


def next_successors(t: Any, extra_steps: tuple = ()) -> Successors:
    """``successors(state)``: every (action, next state) of the generation's ``Next``, in its order,
    then those of ``extra_steps`` (the options' steps, ``step(state, out)``)."""
    gen = t.generation
    names = tuple(gen.next)
    if tuple(name for name in NEXT_ORDER if name in names) != names:
        raise ValueError(f"generation {gen.name}: Next {names} is not in the order of NEXT_ORDER {NEXT_ORDER}")
    return generated_successors(t, extra_steps)
