"""A follower's steps, once for every generation: adopting a request, fetching, truncating.

Their code is their description in ``isrcheck.model.steps.described`` (from which the successor
functions and the z3 relation are derived);
this module says what they model. Each step reads its generation's rule (``isrcheck.model.generations``):

- ``BecomeFollowerAndTruncateTo`` (``KafkaReplication.tla``; ``FencedBecomeFollowerAndTruncate``
  in ``Kip320.tla``): a replica adopts a LeaderAndIsr request of a higher epoch naming another
  replica leader, truncates its log to its generation's offset (``isrcheck.model.steps.truncation``) and
  caps its HW there; the step is disabled when that offset lies beyond its log end, as
  ``FiniteReplicatedLog!TruncateTo`` requires. With KIP-320's fencing the OffsetsForLeaderEpoch
  request carries the leader epoch, so the named replica must already lead at that epoch.
- ``BecomeFollower`` (``Kip320FirstTry.tla``; ``Partition.makeFollower`` with truncation on
  fetch): adopt the request keeping log and HW; truncation is deferred to ``FollowerTruncate``.
- ``FollowerReplicate`` (``FollowerFetch``, ``FencedFollowerFetch``): a follower fetches the next
  record from the replica it follows, which must presume leadership (with fencing: at the
  follower's epoch, FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH otherwise), and takes
  ``min(leader HW, its new end offset)``. Generations that truncate lazily fetch only while the
  follower's last record has the leader's epoch for that offset (the draft's
  ``IsFollowerCaughtUpToLeaderEpoch``; Kafka 2.7+'s ``lastFetchedEpoch`` with no divergence).
- ``FollowerTruncate`` (``Kip320FirstTry.tla``; ``truncateOnFetchResponse``): when the follower is
  ahead of the leader's end offset or its last record's epoch differs from the leader's at that
  offset (LOG_TRUNCATION error, or a ``divergingEpoch`` in the fetch response), it truncates to the
  last offset where it holds the leader's record (KIP-279's rule) and caps its HW there.
- ``FollowerUpdateHighWatermark`` (bug K13, KAFKA-14704): the HW of that diverging response is
  applied before the truncation (``log.maybeUpdateHighWatermark`` before
  ``truncateOnFetchResponse``; fixed in apache/kafka#13230).

A stopped broker takes none of these steps. A truncation also lowers the replica's flushed offset
(the recovery point never exceeds the log end) when lossy stops are modelled.

Abstracted away: fetch requests and responses as messages (a fetch is one atomic step that reads
the leader's current state), fetch sessions, empty fetches that carry only a new HW (a follower's
HW moves only with a record or a diverging response, as in the spec).
"""
