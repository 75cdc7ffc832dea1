"""The steps of the replication model, each written once and named by its TLA+ action.

``successor_function`` puts together a model's ``Next``: the generation's steps, in the order of
its module's disjuncts, as one function (``isrcheck.model.steps.next``, generated from the steps'
descriptions in ``isrcheck.model.steps.described``), then the steps the options add, in a fixed
order (the order of successors is deterministic, and traces depend on it). An option's step is a
closure built once per configuration over the model's tables (``isrcheck.model.tables``):
``step(state, out)`` appends every ``(action, next state)`` it enables to ``out``. Steps read their
generation's rules (``isrcheck.model.generations``) and the options that change them (acks on
writes and HW advances, stopped brokers, flushed offsets on truncation) when they are built, so
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

from collections.abc import Callable
from typing import Any

from ..native.kernel import native_successors
from . import consumers, failures
from .controller import Step
from .next import Successors, next_successors

# The steps the options add (the generation's steps are described in ``isrcheck.model.steps.described``).
BUILDERS: dict[str, Callable[[Any], Step]] = {
    "BrokerStop": failures.broker_stops,
    "BrokerRestart": failures.broker_restart,
    "FlushLog": failures.flush_log,
    "UncleanLeaderElection": failures.unclean_leader_election,
    "AvailabilityZoneFailure": failures.az_failure,
    "ConsumerFetch": consumers.consumer_fetch,
}


def option_steps(t: Any) -> list[str]:
    """The steps the options add after the generation's ``Next``, in order."""
    o, c = t.options, t.consumers
    names = []
    if o.max_crashes:
        names += ["BrokerStop", "BrokerRestart"]
        if t.fields.flushed >= 0:
            names.append("FlushLog")
        if o.unclean_election != "off":
            names.append("UncleanLeaderElection")
    if c.max_az_failures:
        names.append("AvailabilityZoneFailure")
        if not o.max_crashes:  # the stop options did not add restarts and flushes
            names += ["BrokerRestart", "FlushLog"]
        elif "lossy" not in o.crash_kinds:
            names.append("FlushLog")
    if c.consumer_reads != "off":
        names.append("ConsumerFetch")
    return names


def successor_function(t: Any) -> Successors:
    """The model's ``successors(state)``: the generation's ``Next`` as one function, then the
    options' steps. Without options, the C function of ``isrcheck.model.native`` where a compiler is found
    (the same successors in the same order; ``ISRCHECK_PURE_PYTHON=1`` keeps the generated Python)."""
    extra = tuple(BUILDERS[name](t) for name in option_steps(t))
    native = native_successors(t, extra)
    return native if native is not None else next_successors(t, extra)
