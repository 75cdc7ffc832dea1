"""Liveness properties of the replication model: what Kafka promises will *eventually* happen.

All are opt-in (``--property NAME``), as TLC's PROPERTY is, and checked under the fairness the
model declares (``isrcheck.model.fairness``: the steps Kafka takes on its own are weakly fair; producers,
failures, restarts and lag-based ISR shrinks are not). Each is a leads-to ``P ~> Q``.

The model is bounded: the controller has leader epochs ``0..max_leader_epoch`` and every election
or failure detection spends one. Once they are used up no election is possible, which is the bound
and not Kafka; so each Q also accepts "the epoch bound is used up", and a counterexample is never an
artefact of running out of epochs.

- ``LeaderEventuallyElected``: a partition without an established leader (one that has taken its
  LeaderAndIsr request for the current epoch) and with a running ISR member eventually has one
  (``ControllerElectLeader``, then ``BecomeLeader``).
- ``EventuallyOnline``: a partition without an established leader eventually has one, whatever
  the cause. With ``unclean.leader.election.enable=false``, losing the last ISR member (its broker
  stops and may never come back) leaves it offline for ever: a lasso. With unclean election on, it
  holds, and K8 shows what that costs (an acknowledged record lost).
- ``FollowerEventuallyInIsr``: while a leader is established, every running replica is eventually
  in the ISR (a follower out of it keeps fetching, catches up, and the leader expands the ISR); a
  leader change or stop excuses it.
- ``AckedWriteEventuallyAnswered`` (acks set): a running leader with records beyond its high
  watermark (produce requests with acks=all waiting in purgatory) eventually has its high
  watermark at its log end (acknowledged, or NotEnoughReplicasAfterAppend when the ISR is too
  small) or stops being leader (NotLeaderOrFollower): every such request is answered.
"""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.contract import Property

# Offsets in a replica's block and after the blocks (``isrcheck.model.encoding.state``: LOG, HW, EPOCH, LEADER, ISR;
# NEXT_RECORD_ID, Q_LEADER, Q_ISR, REQUESTS), used when the layout does not name them itself.
_BLOCK = {"HW": 1, "EPOCH": 2, "LEADER": 3}
_GLOBAL = {"q_leader": 1, "q_isr": 2, "requests_i": 3}


class _Reader:
    """Index arithmetic shared by the properties: the one place that knows the state layout, read
    from the model's tables (``t.layout``; the stopped-broker mask from ``t.ext`` or ``t.fields``)
    so that properties/ needs no import from model/."""

    def __init__(self, t: Any) -> None:
        lay = t.layout
        self.n, self.base, self.bit, self.all_mask = lay.n, lay.base, lay.bit, lay.all_mask
        self.HW, self.EPOCH, self.LEADER = (getattr(lay, k, v) for k, v in _BLOCK.items())
        self.ql_i, self.qi_i, self.rq_i = (getattr(lay, k, lay.g + v) for k, v in _GLOBAL.items())
        self.max_epoch = t.config.max_leader_epoch
        ext = getattr(t, "fields", None) or getattr(t, "ext", None)
        self.dead_i = getattr(ext, "dead", -1) if ext is not None else -1
        self.length = t.logs.length

    def dead(self, s: tuple) -> int:
        return s[self.dead_i] if self.dead_i >= 0 else 0

    def exhausted(self, s: tuple) -> bool:
        """No leader epoch left for an election or failure detection (the model's bound)."""
        return len(s[self.rq_i]) > self.max_epoch

    def established(self, s: tuple) -> bool:
        """The quorum's leader has taken the current epoch's LeaderAndIsr: it serves requests."""
        ql = s[self.ql_i]
        if ql < 0:
            return False
        b = self.base[ql]
        return s[b + self.LEADER] == ql and s[b + self.EPOCH] == len(s[self.rq_i]) - 1


def leader_eventually_elected(t: Any) -> Property:
    r = _Reader(t)

    def trigger(s: tuple) -> bool:
        return not r.established(s) and bool(s[r.qi_i] & ~r.dead(s)) and not r.exhausted(s)

    def target(s: tuple) -> bool:
        return r.established(s) or not s[r.qi_i] & ~r.dead(s) or r.exhausted(s)

    return Property.leads_to(
        "LeaderEventuallyElected", trigger, target, default=False,
        doc="a partition with a running ISR member and no established leader eventually has one")


def eventually_online(t: Any) -> Property:
    r = _Reader(t)

    def trigger(s: tuple) -> bool:
        return not r.established(s) and bool(s[r.qi_i]) and not r.exhausted(s)

    def target(s: tuple) -> bool:
        return r.established(s) or not s[r.qi_i] or r.exhausted(s)

    return Property.leads_to(
        "EventuallyOnline", trigger, target, default=False,
        doc="a partition without an established leader eventually has one (fails without unclean "
            "election when the last ISR member's broker never comes back)")


def follower_eventually_in_isr(t: Any) -> Property:
    r = _Reader(t)

    def out_of_isr(s: tuple) -> bool:
        return bool(r.all_mask & ~r.dead(s) & ~s[r.qi_i])

    def trigger(s: tuple) -> bool:
        return r.established(s) and out_of_isr(s)

    def target(s: tuple) -> bool:
        return not out_of_isr(s) or not r.established(s) or r.exhausted(s)

    return Property.leads_to(
        "FollowerEventuallyInIsr", trigger, target, default=False,
        doc="while a leader is established, every running replica is eventually back in the ISR")


def acked_write_eventually_answered(t: Any) -> Property:
    r = _Reader(t)
    blocks = tuple((i, r.base[i]) for i in range(r.n))
    length = r.length

    def waiting(s: tuple) -> bool:
        dead = r.dead(s)
        for i, b in blocks:
            if s[b + r.LEADER] == i and not dead & r.bit[i] and length[s[b]] > s[b + r.HW]:
                return True
        return False

    def answered(s: tuple) -> bool:
        return not waiting(s)

    return Property.leads_to(
        "AckedWriteEventuallyAnswered", waiting, answered, default=False,
        doc="every produce request waiting for the high watermark is eventually answered (acknowledged, "
            "NotEnoughReplicasAfterAppend, or NotLeaderOrFollower)")
