"""The KRaft invariants (``isrcheck.properties.kraft``) as formulas over ``KraftVars``, by the same
names; each reads the state as its explicit predicate does (the controller's partition state is the
metadata log's last record). A broker named by a variable (the controller's leader) is unrolled
over the brokers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from isrcheck.model.kraft.config import KraftConfig
from isrcheck.model.kraft.fields import LEADER, NIL, RUNNING

from .steps import Cur, at_least, exactly
from .vars import KraftVars, Sizes


def kraft_properties(c: KraftConfig, z: Sizes) -> dict[str, Callable[[Any, KraftVars], Any]]:
    R, nv, L = range(c.brokers), c.values, z.log
    elr = c.gen.elr

    def holds_value(o: Any, x: Any, val: int) -> Any:
        return o.exists(0, x.llen, lambda off: o.sel(x.lval, off) == val, L)

    def leader_completeness(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        parts = []
        for j in R:
            x = v.b[j]
            complete = o.and_(x.llen >= v.true_hw,
                              *(o.implies(v.acked[val], holds_value(o, x, val)) for val in range(nv)))
            parts.append(o.implies(o.and_(cur.leader == j, x.status == RUNNING), complete))
        return o.or_(v.true_hw == 0, o.and_(*parts))

    def candidate_completeness(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        member = [o.or_(cur.isr[j], cur.elr[j]) if elr else cur.isr[j] for j in R]
        return o.or_(v.true_hw == 0, o.and_(*(o.implies(member[j], o.or_(
            v.b[j].llen >= v.true_hw, v.b[j].status != RUNNING)) for j in R)))

    def current_leader(o: Any, v: KraftVars, cur: Cur, b: int) -> Any:
        return o.and_(v.b[b].role == LEADER, v.b[b].md_le == cur.le)

    def quorum_superset(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        parts = []
        for b in R:
            x = v.b[b]
            settled = o.or_(x.ap_phase != 0, o.and_(*(x.misr[j] == x.isr[j] for j in R)))
            if elr:
                counted = o.implies(at_least(o, x.isr, c.min_isr), o.and_(
                    *(o.implies(o.or_(cur.isr[j], cur.elr[j]), x.misr[j]) for j in R)))
            else:
                counted = o.and_(*(o.implies(cur.isr[j], x.misr[j]) for j in R))
            parts.append(o.implies(current_leader(o, v, cur, b), o.and_(settled, counted)))
        return o.and_(*parts)

    def log_matching(o: Any, v: KraftVars) -> Any:
        parts = []
        for i in R:
            for j in R:
                if i < j:
                    a, b = v.b[i], v.b[j]
                    upto = o.ite(a.llen < b.llen, a.llen, b.llen)
                    hw = o.ite(a.hw < b.hw, a.hw, b.hw)
                    upto = o.ite(hw < upto, hw, upto)
                    parts.append(o.forall(0, upto, lambda off, a=a, b=b: o.sel(a.lval, off) == o.sel(b.lval, off), L))
        return o.and_(*parts)

    def metadata_log_matching(o: Any, v: KraftVars) -> Any:
        return o.and_(*(v.b[j].md_off <= v.mlen for j in R))

    def consistent_read(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        parts = []
        for b in R:
            x = v.b[b]
            same = o.and_(x.llen >= v.true_hw, o.forall(0, v.true_hw, lambda off, x=x: o.and_(
                o.sel(x.lep, off) == o.sel(v.cep, off), o.sel(x.lval, off) == o.sel(v.cval, off)), L))
            parts.append(o.implies(current_leader(o, v, cur, b), same))
        return o.or_(v.true_hw == 0, o.and_(*parts))

    def no_committed_record_lost(o: Any, v: KraftVars) -> Any:
        return o.and_(*(o.implies(v.acked[val], o.or_(*(holds_value(o, v.b[j], val) for j in R)))
                        for val in range(nv)))

    def min_isr_recovery_quorum(o: Any, v: KraftVars) -> Any:
        cur = Cur(o, v)
        return o.or_(*cur.isr, *cur.elr, exactly(o, cur.lk, c.min_isr))

    out = {"LeaderCompleteness": leader_completeness, "LeaderCandidateCompleteness": candidate_completeness,
           "ReplicationQuorumSuperset": quorum_superset, "LogMatching": log_matching,
           "MetadataLogMatching": metadata_log_matching, "ConsistentRead": consistent_read,
           "NoCommittedRecordLostGlobally": no_committed_record_lost}
    if elr:
        out["MinIsrRecoveryQuorum"] = min_isr_recovery_quorum
    assert NIL == -1
    return out
