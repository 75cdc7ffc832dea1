"""The steps of the replication model, each written once and named by its TLA+ action.

``successor_function`` puts together a model's ``Next``: the generation's steps, in the order of
its module's disjuncts, then the steps the options add, in a fixed order
(``described.option_step_names``: the order of successors is deterministic, and traces depend on
it), as one function (``isrcheck.model.steps.next``, generated from the steps' descriptions in
``isrcheck.model.steps.described``, ``failures`` and ``consumers``). Steps read their generation's
rules (``isrcheck.model.generations``) and the options (acks on writes and HW advances, stopped
brokers, flushed offsets on truncation, the kinds of stop...) when the function is generated, so
the hot path pays only for what is switched on.

What each step models:

- ``controller``: ``ControllerElectLeader``, ``ControllerShrinkIsr``, ``BecomeLeader``, ``LeaderWrite``
- ``leader``: ``LeaderExpandIsr``, ``LeaderShrinkIsr``, ``LeaderIncHighWatermark``
- ``follower``: ``BecomeFollowerAndTruncateTo``, ``BecomeFollower``, ``FollowerReplicate``,
  ``FollowerTruncate``, ``FollowerUpdateHighWatermark``
- ``failures``: ``BrokerStop`` (controlled shutdown, crash, lossy crash), ``BrokerRestart``,
  ``FlushLog``, ``UncleanLeaderElection``, ``AvailabilityZoneFailure``
- ``consumers``: ``ConsumerFetch``
"""

from __future__ import annotations

from typing import Any

from ..native.kernel import native_successors
from . import consumers, failures  # noqa: F401 (they register the options' step descriptions)
from .next import Successors, next_successors


def successor_function(t: Any) -> Successors:
    """The model's ``successors(state)``: the generation's ``Next`` and the options' steps as one
    function. Without options, the C function of ``isrcheck.model.native`` where a compiler is found
    (the same successors in the same order; ``ISRCHECK_PURE_PYTHON=1`` keeps the generated Python)."""
    native = native_successors(t)
    return native if native is not None else next_successors(t)
