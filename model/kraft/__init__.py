"""The KRaft-era generations of the replication model: Kafka 3.5's KRaft controller and KIP-966's
Eligible Leader Replicas, after Jack Vanlightly's TLA+ specifications (Vanlightly/kafka-tlaplus,
kafka_data_replication/kraft/v3.5 and kraft/kip-966).

What is modelled: one partition on ``brokers`` brokers (every one a replica unless ``spare_brokers``;
reassignment, KIP-455, with ``reassignments``: the replica set changes); the controller's
broker registrations (fenced or not, broker epochs: KIP-903), its partition state and metadata log
of PartitionChange records (partition epoch, leader epoch, ISR; KIP-966's ELR and last known ELR);
each broker's lifecycle (running, clean or lossy shutdown, start, registration), its copy of the
metadata log, its replica's metadata (with the maximal ISR of KIP-497), log, high watermark, leader
epoch start offset, what a leader knows of its followers, its pending AlterPartition; producer
writes (acks=all) with the spec's ghost variables for acknowledgements, the true high watermark and
what consumers read. The steps (``isrcheck.model.kraft.steps``) are the spec's actions; the generations
(``isrcheck.model.kraft.generations``) are its two modules.

What is abstracted away, and why it is safe to (docs/kraft.md has the full argument):
- the message network: a fetch is one atomic step (request, leader's processing and the
  follower's handling of the response); the one AlterPartition request or response a leader can
  have in flight lives in its ``alter_partition`` slot, and a STARTING broker's registration
  request/response in its status (requests of incarnations that shut down stay in flight, in
  ``reg_requests``, as in the spec). Their spec's network delivers each message at most once and never
  duplicates one; a message the spec can no longer act on (stale, uncorrelated) is dropped here.
  The atomic fetch leaves out a fetch response overtaken by a change of the follower's leader epoch
  and a request reaching a leader that is deposed but does not know it yet; ``split_fetch`` puts
  that window back (the spec's three fetch steps, one message in flight per fetcher) and changes no
  verdict wherever both can be checked;
- heartbeats (fencing and unfencing happen at any time, as in the spec), the
  controller's own Raft, incarnation ids (what they decide is modelled: a request in flight is
  refused while the broker's registration is UNFENCED, a response reaches only its incarnation), the
  spec's anti-cycle devices (``__AvoidCycle``, ``Converged``: for liveness checking). Liveness is
  checked under the specs' fairness (``isrcheck.model.kraft.fairness``).
"""

from .config import KraftConfig
from .generations import KRAFT_GENERATIONS, KraftGeneration
from .model import KraftModel

__all__ = ["KRAFT_GENERATIONS", "KraftConfig", "KraftGeneration", "KraftModel"]
