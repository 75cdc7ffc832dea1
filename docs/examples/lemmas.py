"""Your own lemmas for ``isrcheck prove --lemmas docs/examples/lemmas.py``.

Each lemma is a function ``(ops, v) -> formula`` over the model's symbolic state ``v`` (for the
classic model a ``isrcheck.model.symbolic.vars.KafkaVars``: ``v.length[i]``, ``v.hw[i]``, ``v.ep[i]``,
``v.ld[i]``, ``v.isr[i][j]``, ``v.ql``, ``v.qisr[j]``, ``v.nreq``, ...), written with ``ops``
(``ops.and_``, ``ops.implies``, ``ops.forall``; see explorer/symbolic/ops.py) so the same text is
evaluated on states and handed to z3.
"""


def leader_hw_within_its_log(ops, v):
    """A replica that presumes leadership never exposes more than it holds."""
    return ops.and_(*(ops.implies(v.ld[i] == i, v.hw[i] <= v.length[i]) for i in range(len(v.hw))))


def no_record_is_ever_written(ops, v):
    """False (a producer writes): Houdini drops it."""
    return ops.and_(*(k == 0 for k in v.length))


LEMMAS = {"LeaderHwWithinItsLog": leader_hw_within_its_log, "NoRecordIsEverWritten": no_record_is_ever_written}
