"""A variant of KIP-320 in a user's own file: one rule changed (docs/variants.md, "Your own variant").

Kafka 0.8 kept a follower in the ISR while it was at most ``replica.lag.max.messages`` records
behind the leader (removed in 0.9). Here KIP-320's ISR rule becomes that with a lag of one record:
the leader counts a follower as caught up to an offset when the follower's log reaches at least
that offset minus one. The rule is written once, against the expression operations; ``isrcheck
check`` (the Python and the C successor functions read a table filled from it), ``isrcheck bmc``
and ``isrcheck prove`` (the z3 relations read it on symbolic logs, bounded and unbounded) run it.
"""

from isrcheck.model.variants import caught_up_rule, variant, variant_model


@caught_up_rule("lag-one")
def lag_one(o, leader, follower, end, size):
    """The follower holds the leader's first ``end`` offsets but at most the last one."""
    return o.or_(end == 0, end <= follower.length + 1)


def make_model(*, replicas: int = 2, max_leader_epoch: int = 2, property_set: str = "all"):
    """KIP-320 with a lag of one record allowed in the ISR.

    replicas: number of replicas.
    max_leader_epoch: the largest leader epoch the controller may reach.
    property_set: which properties (as the classic model's).
    """
    generation = variant("kip320", name="kip320-lag-one", isr_rule="lag-one")
    return variant_model(generation, replicas=replicas, max_leader_epoch=max_leader_epoch,
                         property_set=property_set)
