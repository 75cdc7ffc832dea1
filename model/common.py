"""Steps every generation shares unchanged: the controller and the producer path.

Modelled (``KafkaReplication.tla``):

- ``ControllerElectLeader``: clean leader election; the controller picks any quorum-ISR member
  other than the current leader, bumps the leader epoch and sends a LeaderAndIsr request.
- ``ControllerShrinkIsr``: the controller removes a replica from the quorum ISR (broker failure or
  controlled shutdown; a removed leader leaves the partition leaderless, and a sole-ISR leader is
  un-led but kept in the ISR). Failures themselves are not modelled: a removed replica may keep
  fetching (a zombie) or stop, and both are explored.
- ``BecomeLeader``: a replica named leader by a request of a higher epoch than it has seen adopts
  it, keeping its (possibly stale) high watermark.
- ``LeaderWrite``: a producer appends to any replica that *presumes* leadership, stamped with that
  replica's leader epoch (fencing of zombie leaders is left to ISR updates, as in Kafka).

Abstracted away: ZooKeeper itself and the propagation of its state (quorum updates are atomic and
seen by everyone), controller failover, producer acks and ``min.insync.replicas``. LeaderAndIsr
requests are a growing set that replicas read in any order, so lost, late and duplicated requests
are all covered; a request naming no leader is never acted on (the spec's followers and leaders
quantify over ``Replicas``, never ``None``).
"""

from __future__ import annotations

from collections.abc import Callable

from .state import ISR, LEADER, NEXT_RECORD_ID, Q_ISR, Q_LEADER, REQUESTS
from .tables import ModelTables

Step = Callable[[tuple, list], None]


def controller_elect_leader(t: ModelTables) -> Step:
    n = t.layout.n
    g = t.layout.g
    ql_i, qi_i, rq_i = g + Q_LEADER, g + Q_ISR, g + REQUESTS
    max_epoch = t.config.max_leader_epoch
    members = t.layout.members
    acts = t.actions.elect

    def step(s: tuple, out: list) -> None:
        reqs = s[rq_i]
        epoch = len(reqs)
        if epoch > max_epoch:
            return
        ql = s[ql_i]
        qi = s[qi_i]
        head = s[:ql_i]
        for new_leader in members[qi]:
            if new_leader != ql:
                request = ((new_leader + 1) << n) | qi
                out.append((acts[new_leader][epoch], head + (new_leader, qi, reqs + (request,))))

    return step


def controller_shrink_isr(t: ModelTables) -> Step:
    n = t.layout.n
    g = t.layout.g
    ql_i, rq_i = g + Q_LEADER, g + REQUESTS
    max_epoch = t.config.max_leader_epoch
    bit = t.layout.bit
    acts = t.actions.controller_shrink
    replicas = t.layout.replicas

    def step(s: tuple, out: list) -> None:
        reqs = s[rq_i]
        epoch = len(reqs)
        if epoch > max_epoch:
            return
        ql, qi = s[ql_i], s[ql_i + 1]
        head = s[:ql_i]
        for r in replicas:
            if ql == r:
                # The leader fails: leaderless; it stays in the ISR only if it is the sole member.
                new_leader, new_isr = -1, (qi if qi == bit[r] else qi & ~bit[r])
            elif qi & bit[r]:
                # A follower fails (the current spec no longer requires it not to be the sole member).
                new_leader, new_isr = ql, qi & ~bit[r]
            else:
                continue
            request = ((new_leader + 1) << n) | new_isr
            out.append((acts[r][epoch], head + (new_leader, new_isr, reqs + (request,))))

    return step


def become_leader(t: ModelTables) -> Step:
    n = t.layout.n
    rq_i = t.layout.g + REQUESTS
    mask = t.layout.all_mask
    acts = t.actions.become_leader
    base = t.layout.base

    def step(s: tuple, out: list) -> None:
        for epoch, request in enumerate(s[rq_i]):
            leader = (request >> n) - 1
            if leader < 0:
                continue
            b = base[leader]
            if epoch > s[b + 2]:
                out.append((acts[leader][epoch], s[: b + 2] + (epoch, leader, request & mask) + s[b + 5 :]))

    return step


def leader_write(t: ModelTables) -> Step:
    g = t.layout.g
    nr_i = g + NEXT_RECORD_ID
    max_records = t.config.max_records
    log_size = t.config.log_size
    length = t.logs.length
    pow_ = t.logs.pow
    epochs = t.logs.epochs
    acts = t.actions.write
    blocks = tuple((r, t.layout.base[r]) for r in t.layout.replicas)

    def step(s: tuple, out: list) -> None:
        record_id = s[nr_i]
        if record_id >= max_records:
            return
        for r, b in blocks:
            if s[b + LEADER] == r:
                log = s[b]
                k = length[log]
                if k < log_size:
                    epoch = s[b + 2]
                    new_log = log + (record_id * epochs + epoch + 1) * pow_[k]
                    nxt = s[:b] + (new_log,) + s[b + 1 : nr_i] + (record_id + 1,) + s[nr_i + 1 :]
                    out.append((acts[r][record_id][epoch][k], nxt))

    return step


def quorum_update(s: tuple, b: int, g: int, new_isr: int) -> tuple:
    """``QuorumUpdateLeaderAndIsr`` effect: the true leader (block ``b``) writes ``new_isr`` to the
    quorum and to its own cached ISR. The caller has checked ``IsTrueLeader``."""
    return s[: b + ISR] + (new_isr,) + s[b + ISR + 1 : g + Q_ISR] + (new_isr,) + s[g + Q_ISR + 1 :]


def true_leader_blocks(t: ModelTables) -> tuple[tuple[int, int], ...]:
    """(replica, block offset) pairs, for steps that loop over candidate leaders."""
    return tuple((r, t.layout.base[r]) for r in t.layout.replicas)
