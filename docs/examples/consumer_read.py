"""A consumer never reads at or beyond the leader's HW, in two readings (docs/properties-own.md)."""

from isrcheck import transition
from isrcheck.kafka import ConsumerFetch


@transition
def ConsumerReadsBelowLeaderHw(s, action, after):
    """A consumer never reads at or beyond the HW of the leader the controller elected."""
    if not isinstance(action, ConsumerFetch) or s.leader is None:
        return True
    return action.offset < s.leader.hw


@transition
def ConsumerReadsBelowServerHw(s, action, after):
    """A consumer never reads at or beyond the HW of the replica that serves the read."""
    return not isinstance(action, ConsumerFetch) or action.offset < s.replica(action.replica).hw
