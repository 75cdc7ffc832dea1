"""Steps every generation shares: the controller, LeaderAndIsr requests naming a leader, producers.

Their code is their description in ``isrcheck.model.steps.described`` (from which the successor
functions and the z3 relation are derived);
this module says what they model and holds the request decoding the steps share (``NamedRequests``).

Modelled (``KafkaReplication.tla``):

- ``ControllerElectLeader``: clean leader election; the controller picks any quorum-ISR member
  other than the current leader, bumps the leader epoch and sends a LeaderAndIsr request.
- ``ControllerShrinkIsr``: the controller removes a replica from the quorum ISR (broker failure or
  controlled shutdown; a removed leader leaves the partition leaderless, and a sole-ISR leader is
  un-led but kept in the ISR). The spec does not model failures as events: a removed replica may
  keep fetching (a zombie) or stop, and both are explored (with ``max_crashes`` the stops are
  steps of their own, ``isrcheck.model.steps.failures``).
- ``BecomeLeader``: a replica named leader by a request of a higher epoch than it has seen adopts
  it, keeping its (possibly stale) high watermark.
- ``LeaderWrite``: a producer appends to any replica that *presumes* leadership, stamped with that
  replica's leader epoch (fencing of zombie leaders is left to ISR updates, as in Kafka). With
  the ``acks`` option the write is the produce request reaching the leader
  (``Partition.appendRecordsToLeader``): acks=1 acknowledges it at once; acks=all refuses it while
  the leader's cached ISR is smaller than ``min.insync.replicas`` (NotEnoughReplicasException).

A step whose acting broker is stopped (the ``dead`` field) is not taken: a stopped broker elects
nothing, adopts no request and appends nothing; ``ControllerShrinkIsr`` of a stopped broker is the
controller's failure detection and stays.

Abstracted away: ZooKeeper itself and the propagation of its state (quorum updates are atomic and
seen by everyone), controller failover. LeaderAndIsr requests are a growing set that replicas read
in any order, so lost, late and duplicated requests are all covered; a request naming no leader is
never acted on (the spec's followers and leaders quantify over ``Replicas``, never ``None``).
"""

from __future__ import annotations


class NamedRequests(dict):
    """``named[requests]``: (epoch, leader, isr) of every LeaderAndIsr request in the tuple that
    names a leader (the only ones a replica acts on), by ascending epoch. Memoised per requests
    tuple: there are few distinct ones, and the steps that adopt a request read them."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def __missing__(self, requests: tuple) -> tuple:
        n, mask = self.n, (1 << self.n) - 1
        named = tuple((epoch, (code >> n) - 1, code & mask) for epoch, code in enumerate(requests) if code >> n)
        self[requests] = named
        return named
