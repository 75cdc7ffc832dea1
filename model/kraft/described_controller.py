"""The KRaft controller's partition changes and election, written once against the step operations
(``isrcheck.model.kraft.described.Ops``) and read both ways, as the steps that call them are: the
explicit reading (``staging.py``) writes them into each calling step's generated source, one
branch per way the controller may elect, the z3 reading (``symbolic/derived.py``) runs them on the
state variables with the elected broker a choice.

Modelled (``v3_5_functions.tla`` / ``kip_966_functions.tla``): ``HandleBrokerFenced``,
``HandleBrokerUnfenced``, ``ProcessUncleanBroker`` (KIP-966), ``MaybeUpdatePartitionOnBrokerChange``
(keep the leader if it may stay, else elect: 3.5 any unfenced ISR member; KIP-966 any ISR member,
then any unfenced ELR member, which moves into the ISR; else NoLeader) and an accepted
AlterPartition's ``ApplyPartitionChange`` with ``UpdateElr``. The rules where the generations differ
are ``rules.py``'s (read through operations: memoised tables explicitly, terms in z3); appending a
PartitionChange record (``x.change_partition``: the record's encoding, with KIP-966's last known
ELR) is the one write each reading answers itself.

Abstracted away: the controller's own Raft quorum (as in the spec). Reassignment (KIP-455: its
step and the completion an AlterPartition may bring) has no symbolic form, so it stays in
``controller.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import rules
from .fields import NIL

KINDS = ("broker_fenced", "broker_unfenced", "unclean_broker")


def elections(x: Any, kind: str, b: int) -> Iterator[Any]:
    """The controller's reaction to broker ``b``'s change (``kind``, one of ``KINDS``), after the
    step's own updates: each way it may elect a leader, as the action shows it (the broker's id,
    ``"none"`` for NoLeader, None where the leader is unchanged)."""
    isr, elr, n = x.let(x.controller("isr")), x.let(x.controller("elr")), x.n
    leader = x.let(x.controller("leader"))
    fenced = kind == "broker_fenced"
    unfenced = x.let(x.set_of([(not fenced) if j == b else x.get(j, "c_unfenced") for j in range(n)]))
    x.put(b, "c_unfenced", 0 if fenced else 1)
    if fenced:  # HandleBrokerFenced: out of the ISR (as rules.isr_after_fencing says), into the ELR
        new_isr = x.let(x.isr_after_fencing(isr, b))
        new_elr = x.let(x.update_elr(isr, elr, new_isr, x.controller("replicas")))
        yield from on_broker_change(x, (isr, elr, leader), new_isr, new_elr, unfenced, True)
    elif kind == "broker_unfenced":  # HandleBrokerUnfenced: only a leaderless partition changes
        yield from on_broker_change(x, (isr, elr, leader), isr, elr, unfenced, leader == NIL)
    else:  # ProcessUncleanBroker: b may have lost data, so it leaves the ISR and the ELR
        gone = x.set_of([j == b for j in range(n)])
        new_isr, new_elr = x.let(x.difference(isr, gone)), x.let(x.difference(elr, gone))
        yield from on_broker_change(x, (isr, elr, leader), new_isr, new_elr, unfenced, True)


def on_broker_change(x: Any, cur: tuple[Any, Any, Any], new_isr: Any, new_elr: Any, unfenced: Any,
                     active: Any) -> Iterator[Any]:
    """``MaybeUpdatePartitionOnBrokerChange`` where ``active`` holds (else nothing changes), ``cur``
    the controller's ISR, ELR and leader before the change: the leader stays (a record only if the
    ISR or the ELR changed), or a candidate is elected in a new leader epoch (KIP-966: from the
    unfenced ELR, then moved into the ISR), or NoLeader."""
    n = x.n
    leader, le = cur[2], x.controller("leader_epoch")
    cand = x.let(x.candidates(new_isr, new_elr, unfenced))
    any_cand = x.not_(x.same_set(cand, x.no_brokers()))
    leader_ok = x.or_(*(x.and_(leader == j, rules.leader_may_stay(x, x.gen, x.member(new_isr, j),
                                                                   x.member(unfenced, j))) for j in range(n)))
    stays = x.let(x.or_(x.not_(active), x.and_(leader == NIL, x.not_(any_cand)), leader_ok))
    elect = x.let(x.and_(x.not_(stays), any_cand))
    changed = x.and_(active, x.not_(x.and_(x.same_set(new_isr, cur[0]), x.same_set(new_elr, cur[1]))))
    # Only a broker elected from the ELR (the new ISR empty) leaves it; one elected from the ISR
    # leaves the ELR as it is, as the spec's ISR branch does: an ISR member can be in the ELR (an
    # AlterPartition that re-admits it while the ISR stays below MinISR keeps its ELR place).
    from_elr = x.let(x.and_(elect, x.same_set(new_isr, x.no_brokers())))
    for c in x.elected_choices():  # -1: no one elected
        x.require(x.ite(elect, x.or_(*(x.and_(c == j, x.member(cand, j)) for j in range(n))), c == -1))
        chosen = x.single(c, elect)
        x.change_partition(x.ite(stays, leader, x.ite(elect, c, NIL)), x.ite(stays, le, le + 1),
                           x.union(new_isr, chosen), x.difference(new_elr, x.single(c, from_elr)),
                           x.or_(x.not_(stays), changed))
        yield x.elected_id(c, stays)


def alter_partition(x: Any, leader: int, isr: Any) -> None:
    """An accepted AlterPartition: ``ApplyPartitionChange`` at the same leader epoch, the ELR by
    ``UpdateElr``."""
    elr = x.update_elr(x.controller("isr"), x.controller("elr"), isr, x.controller("replicas"))
    x.change_partition(leader, x.controller("leader_epoch"), isr, elr, True)
