"""The history's update (``vars.History``): its next value as a function of a step's two states.

Each step instance's next state (``steps``: the real fields) is computed first; ``with_history``
then sets the history from that state and the one before, so the relation on the real fields is
exactly the explicit model's and the history only records it:

- a broker that takes the leader role in a leader epoch (``BecomeLeaderInNewEpoch``: not leading
  before, or leading an older epoch) writes its epoch start, its broker epoch, itself and its
  ``lost`` (below) at that epoch;
- a broker whose log gets shorter, or changes below its old end (a truncation, a lossy shutdown),
  records the leader epoch its metadata is at after the step (0 where it has none) and the metadata
  log's length after the step (``lostk``: which records were appended before the loss);
- a broker the controller registers again (its controller-side broker epoch changes) has lost
  nothing since and its HW has not grown since (it starts at 0), and records the metadata log's
  length before the registration (its current record then is the one at that length minus one; a
  registration may append one after it);
- a leader's HW advance that moves the true HW (the ghost of what is committed) records that
  leader's leader epoch (``hwe``: the epoch at which the committed offset last grew);
- a broker whose HW grows (a leader's advance, a follower taking its leader's HW on a fetch)
  records the leader epoch of its metadata after the step (``hwat``: a follower fetches only at its
  leader's epoch, so this is the epoch of the leader whose HW it took).

A history a step cannot change (the fields it reads are the very terms they were) stays the same
term, so ``relation.transition`` adds no case for that step: BMC's partial-order reduction sees the
same footprints as without it wherever nothing is recorded.

Abstracted away: nothing; the history is a function of the trace, kept only symbolically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from isrcheck.explorer.symbolic.contract import SymStep
from isrcheck.explorer.symbolic.relation import same_term
from isrcheck.model.kraft.fields import LEADER

from .vars import KraftVars, Sizes


def history_next(o: Any, v: KraftVars, w: KraftVars, z: Sizes) -> None:
    """Set ``w.h`` (a copy of ``v.h``) from the step ``v -> w`` (see the module docstring)."""
    h = w.h
    for j, (x, y) in enumerate(zip(v.b, w.b, strict=True)):
        if not (same_term(x.role, y.role) and same_term(x.md_le, y.md_le) and same_term(x.eps, y.eps)):
            began = o.and_(y.role == LEADER, o.or_(x.role != LEADER, x.md_le != y.md_le))
            h.es = _store_if(o, began, h.es, y.md_le, y.eps)
            h.esb = _store_if(o, began, h.esb, y.md_le, y.bepoch)
            h.esl = _store_if(o, began, h.esl, y.md_le, j)
            h.esx = _store_if(o, began, h.esx, y.md_le, h.lost[j])
        if not (same_term(x.llen, y.llen) and same_term(x.lep, y.lep) and same_term(x.lval, y.lval)):
            upto = o.ite(y.llen < x.llen, y.llen, x.llen)
            changed = o.exists(0, upto, lambda off, x=x, y=y: o.or_(
                o.sel(x.lep, off) != o.sel(y.lep, off), o.sel(x.lval, off) != o.sel(y.lval, off)), z.log)
            loss = o.or_(y.llen < x.llen, changed)
            h.lost[j] = o.ite(loss, y.md_le, h.lost[j])
            h.lostk[j] = o.ite(loss, w.mlen, h.lostk[j])
        if not same_term(x.hw, y.hw):
            h.hwat[j] = o.ite(y.hw > x.hw, y.md_le, h.hwat[j])
        if not same_term(x.cbe, y.cbe):
            again = x.cbe != y.cbe
            h.lost[j] = o.ite(again, 0, h.lost[j])
            h.lostk[j] = o.ite(again, 0, h.lostk[j])
            h.reg[j] = o.ite(again, v.mlen, h.reg[j])
            h.hwat[j] = o.ite(again, 0, h.hwat[j])
    if not same_term(v.true_hw, w.true_hw):
        # Only a leader's HW advance moves the true HW (``raise_hw``), to its new HW: the broker
        # whose HW changed to the new true HW is that leader.
        by = h.hwe
        for x, y in zip(v.b, w.b, strict=True):
            if not same_term(x.hw, y.hw):
                by = o.ite(o.and_(y.hw != x.hw, y.hw == w.true_hw), y.md_le, by)
        h.hwe = o.ite(w.true_hw != v.true_hw, by, h.hwe)


def _store_if(o: Any, cond: Any, arr: Any, i: Any, value: Any) -> Any:
    if cond is False or o.is_false(cond):
        return arr
    if cond is True:
        return o.store(arr, i, value)
    if isinstance(arr, tuple):  # concrete
        return o.store(arr, i, value) if cond else arr
    if isinstance(arr, list):  # bounded: one if-then-else per element
        return [o.ite(cond, new, old) for new, old in zip(o.store(arr, i, value), arr, strict=True)]
    return o.store(arr, i, o.ite(cond, value, o.sel(arr, i)))


def with_history(steps: Sequence[SymStep], z: Sizes) -> list[SymStep]:
    """The steps with the history's update after each one's real update."""

    def wrap(step: SymStep) -> SymStep:
        def fn(o: Any, v: KraftVars) -> tuple[Any, Any]:
            guard, nxt = step.fn(o, v)
            if nxt is not None and nxt is not v:
                nxt.h = v.h.copy()
                history_next(o, v, nxt, z)
            return guard, nxt

        return SymStep(step.label, fn, step.params)

    return [wrap(s) for s in steps]
