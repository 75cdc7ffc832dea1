"""The metadata quorum: the Raft that replicates KRaft's ``__cluster_metadata`` log (KIP-595), after
Jack Vanlightly's KRaft.tla (Vanlightly/raft-tlaplus, ``specifications/pull-raft``), registered as
the model ``quorum``.

What is modelled, as the spec has it: servers (all voters) with an epoch, a state (Unattached,
Voted, Candidate, Leader, Follower; IllegalState where the spec's transitions say something went
wrong), a vote, a known leader and a pending fetch; each server's copy of the log of ``(epoch,
value)`` entries and its high watermark; elections (a timeout and its vote requests in one step,
votes granted to a candidate whose last entry is not behind, a majority to lead, BeginQuorum to
announce it); pull-based replication (followers fetch from their leader with their log end and
last epoch; the leader answers with the next entry, or with the end of the follower's last epoch
when the follower's log diverges, and the follower truncates to the entry they share); the leader's
high watermark over a majority's fetch offsets, advanced only to an entry of its own epoch;
fetch-based failure detection (a follower whose fetch is answered with an error of a later epoch,
or who times out, moves on or stands for election); restarts that keep epoch, vote and log,
bounded by ``--max-crashes``, into the spec's leaderless Follower or (``--restart persisted``, not
in the spec) into the election state the server had persisted; the network as the spec's bag of
messages, each delivered at most as often as sent, in any order. With ``--pre-vote``, KIP-996's
pre-vote after kafka-tlaplus ``kraft/kip_996`` (``isrcheck.model.quorum.prevote``): a timeout makes
the server Prospective in its epoch, and only a majority of pre-votes lets it stand for election.

What is abstracted away (the spec's own choices, kept so that the counts compare with TLC's):
BeginQuorumResponse handling, EndQuorum and snapshots (not needed for safety, as the spec says);
message loss and duplication (commented out of the spec's ``Next``; a message that is never
delivered is a loss already); the implementation's epoch cache (the leader reads its log).
"""

from .config import QuorumConfig
from .model import QuorumModel

__all__ = ["QuorumConfig", "QuorumModel"]
