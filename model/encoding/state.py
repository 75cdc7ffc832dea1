"""The classic part of the state layout: one flat tuple of ints plus one tuple of ints.

``isrcheck.model.encoding.fields`` is the table of every field (these and the option fields appended after
them); this module is the index arithmetic for the classic fields, which the hot path uses.

The TLA+ variables of ``KafkaReplication.tla`` map onto the flat tuple ``s`` as follows, for
replicas with internal indices ``i = 0..n-1`` (shown to users as ids ``i + 1``):

====================  ===============================================================
``s[5*i + LOG]``      ``replicaLog[i]``: log code (see ``isrcheck.model.encoding.logs``)
``s[5*i + HW]``       ``replicaState[i].hw``
``s[5*i + EPOCH]``    ``replicaState[i].leaderEpoch``  (``NIL = -1`` before any request)
``s[5*i + LEADER]``   ``replicaState[i].leader``       (``NONE = -1``)
``s[5*i + ISR]``      ``replicaState[i].isr``          (bit mask: bit j set = replica j)
``s[5*n + NEXT_RECORD_ID]``  ``nextRecordId``
``s[5*n + Q_LEADER]`` ``quorumState.leader``            (``NONE = -1``)
``s[5*n + Q_ISR]``    ``quorumState.isr``               (bit mask)
``s[5*n + REQUESTS]`` ``leaderAndIsrRequests``: a tuple of request codes, element ``e`` is the
                      request of leader epoch ``e``: ``((leader + 1) << n) | isr``
====================  ===============================================================

Two TLA+ variables are implied rather than stored, which keeps the map one-to-one on reachable
states (so distinct-state counts equal TLC's): ``nextLeaderEpoch = len(requests)`` and
``quorumState.leaderEpoch = len(requests) - 1``. Both hold because ``ControllerUpdateIsr`` is the
only writer of either and always bumps the epoch and adds a request whose epoch is the new quorum
epoch; every request carries a distinct epoch, so the request *set* is exactly this sequence.
``quorumState.leader`` is stored although it equals the last request's leader, to save a lookup.
"""

from __future__ import annotations

from collections.abc import Iterator

from .fields import GLOBAL_FIELDS, INITIAL_ALL, REPLICA_FIELDS

NONE = -1  # no leader (TLA+ ``None``)
NIL = -1  # no leader epoch yet (TLA+ ``Nil``)

# Offsets inside one replica's block of five fields (the order of ``fields.REPLICA_FIELDS``).
LOG, HW, EPOCH, LEADER, ISR = range(5)
FIELDS_PER_REPLICA = len(REPLICA_FIELDS)
# Offsets of the global fields after the replica blocks (the order of ``fields.GLOBAL_FIELDS``).
NEXT_RECORD_ID, Q_LEADER, Q_ISR, REQUESTS = range(4)


class Layout:
    """Index arithmetic for ``n`` replicas, computed once.

    The field offsets are attributes too (``layout.HW``, ``layout.q_isr``...), so that
    ``properties/`` reads the layout from the model it is given instead of importing ``model``.
    """

    LOG, HW, EPOCH, LEADER, ISR = LOG, HW, EPOCH, LEADER, ISR
    # Block offsets, then offsets of the global fields from ``g``: what ``properties/`` unpacks.
    offsets = (LOG, HW, EPOCH, LEADER, ISR, NEXT_RECORD_ID, Q_LEADER, Q_ISR, REQUESTS)

    def __init__(self, replicas: int) -> None:
        n = replicas
        self.n = n
        self.replicas = tuple(range(n))
        self.base = tuple(FIELDS_PER_REPLICA * i for i in range(n))
        self.g = FIELDS_PER_REPLICA * n
        self.length = self.g + len(GLOBAL_FIELDS)
        # Absolute indices of the global fields.
        self.next_record_id = self.g + NEXT_RECORD_ID
        self.q_leader = self.g + Q_LEADER
        self.q_isr = self.g + Q_ISR
        self.requests_i = self.g + REQUESTS
        self.all_mask = (1 << n) - 1
        self.bit = tuple(1 << i for i in range(n))
        # members[mask] -> replica indices in ascending order
        self.members = tuple(tuple(i for i in range(n) if mask >> i & 1) for mask in range(1 << n))
        # blocks[i] = (i, base offset); running_blocks[stopped mask] = the blocks of running replicas
        self.blocks = tuple((i, self.base[i]) for i in range(n))
        self.running_blocks = tuple(tuple(rb for rb in self.blocks if not mask >> rb[0] & 1) for mask in range(1 << n))
        self.request_codes = (n + 1) << n

    # -- requests ----------------------------------------------------------------------------

    def request(self, leader: int, isr: int) -> int:
        return ((leader + 1) << self.n) | isr

    def request_leader(self, code: int) -> int:
        return (code >> self.n) - 1

    def request_isr(self, code: int) -> int:
        return code & self.all_mask

    # -- whole states ------------------------------------------------------------------------

    def initial(self) -> tuple:
        """``Init``: empty logs, hw 0, no epoch, no leader, empty cached ISR on every replica; the
        quorum has no leader, epoch Nil and every replica in its ISR; no requests sent yet."""
        block = tuple(f.initial for f in REPLICA_FIELDS)
        return block * self.n + tuple(self.all_mask if f.initial == INITIAL_ALL else f.initial for f in GLOBAL_FIELDS)

    def replica_fields(self, state: tuple, i: int) -> tuple[int, int, int, int, int]:
        b = self.base[i]
        return state[b], state[b + HW], state[b + EPOCH], state[b + LEADER], state[b + ISR]

    def requests(self, state: tuple) -> Iterator[tuple[int, int, int]]:
        """(epoch, leader, isr mask) of every LeaderAndIsr request, by ascending epoch."""
        for epoch, code in enumerate(state[self.g + REQUESTS]):
            yield epoch, self.request_leader(code), self.request_isr(code)

    def quorum_epoch(self, state: tuple) -> int:
        return len(state[self.g + REQUESTS]) - 1

    def next_leader_epoch(self, state: tuple) -> int:
        return len(state[self.g + REQUESTS])
