"""A variant of KIP-320 in a user's own file: one step's guard changed (docs/variants.md, "A step of your own").

Suppose a broker tried to restore availability sooner: while the leader's ISR is smaller than
``min.insync.replicas`` (acks=all writes are refused then), the leader adds a follower that
fetches from it at its epoch at once, without waiting for it to catch up to the high watermark.
``LeaderExpandIsr`` below is KIP-320's (``isrcheck.model.steps.described``), with that one guard
widened. It is written once, against the step operations: ``isrcheck check`` runs the Python
successor function generated from it, ``isrcheck bmc`` (and ``isrcheck prove`` where the
unbounded encoding covers acks=all) the z3 relation derived from it.
"""

from isrcheck.model.steps.described import counts, true_leader
from isrcheck.model.variants import step_form, variant, variant_model


@step_form("expand-under-min-isr", of="LeaderExpandIsr")
def expand_under_min_isr(x):
    """KIP-320's LeaderExpandIsr; under min.insync.replicas any follower of the leader's epoch joins."""
    for lead in true_leader(x):
        isr, hw = x.isr(lead), x.hw(lead)
        end = x.let(x.log_end(lead))  # HasHighWatermarkReachedCurrentEpoch
        x.require(x.or_(hw == end, x.and_(hw < end, x.rec_epoch(lead, hw) == x.ep(lead))))
        under = x.not_(x.at_least(isr, x.opt.min_isr))
        for r in x.replicas("r"):
            follows = x.and_(x.ld(r) == lead, x.ep(r) == x.ep(lead))
            x.require(x.not_(x.has(isr, r)),
                      x.or_(counts(x, lead, r, hw, x.gen.isr_rule), x.and_(under, follows)))  # the change
            x.put("isr", lead, x.with_(isr, r))
            x.put("qisr", None, x.with_(isr, r))
            x.emit(lead, r)


def make_model(*, replicas: int = 2, max_records: int = 1, property_set: str = "all"):
    """KIP-320, acks=all with min.insync.replicas 2, with the ISR expanded eagerly under it.

    replicas: number of replicas.
    max_records: how many records producers write.
    property_set: which properties (as the classic model's).
    """
    generation = variant("kip320", name="kip320-expand-under-min-isr", forms=("expand-under-min-isr",))
    return variant_model(generation, replicas=replicas, max_records=max_records, acks="all",
                         min_insync_replicas=2, property_set=property_set)
