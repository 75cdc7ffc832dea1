"""The true leader's steps on its ISR and its high watermark, once for every generation.

Their code is their description in ``isrcheck.model.steps.described`` (from which the successor
functions and the z3 relation are derived);
this module says what they model. Each step reads its generation's rule (``isrcheck.model.generations``,
``isrcheck.model.steps.rules``):

- ``LeaderShrinkIsr`` (``FencedLeaderShrinkIsr`` in ``Kip320.tla``, ``LeaderShrinkIsrBetterFencing``
  in ``Kip320FirstTry.tla``): the true leader drops a member that has not caught up to its log end
  offset (``replica.lag.time.max.ms`` expiry; with fencing, also a member on another epoch),
  writing the new ISR to the quorum (zkVersion fencing assumed correct).
- ``LeaderExpandIsr`` (``FencedLeaderExpandIsr``, ``LeaderExpandIsrBetterFencing``): the true
  leader re-admits a follower that has caught up to its high watermark; from KIP-320's draft on,
  only once the HW has reached the leader's own epoch (the fix for bug K6: a new leader's HW lags
  the old one, so admitting at the stale HW could admit a replica missing committed records; the
  ``expand_before_epoch_start`` option is the bug).
- ``LeaderIncHighWatermark`` (``FencedLeaderIncHighWatermark``, ``ImprovedLeaderIncHighWatermark``):
  a presumed leader advances its HW when every member of its cached ISR follows it and has caught
  up to the next offset. With ``acks=all`` the record the HW passes is acknowledged when the ISR
  still has ``min.insync.replicas`` members (``Partition.checkEnoughReplicasReachOffset``; an
  over-approximation on purpose: a produce request Kafka would have failed at a leadership change
  is counted as acknowledged, and losing it is a loss either way).

``IsTrueLeader(r)``: ``r`` is the quorum leader, presumes leadership and has adopted the quorum's
leader epoch. A stopped broker takes none of these steps.

Abstracted away: fetch requests as messages (the leader reads its followers' logs directly, as
the spec does), fetch sessions, timing of the lag check (any lagging follower may be dropped).
"""
