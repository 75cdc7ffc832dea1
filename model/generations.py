"""Which steps make up each generation's ``Next`` relation, in the spec's order.

Each entry reproduces the ``Next`` of one module of hachikuji/kafka-specification; the order of the
steps is the order of its disjuncts, which fixes the (deterministic) order of successors.
"""

from __future__ import annotations

from collections.abc import Callable

from . import classic_steps as classic
from . import common, kip320, kip320_first_try, truncation
from .common import Step
from .tables import ModelTables


def _shared(t: ModelTables) -> list[Step]:
    return [common.controller_elect_leader(t), common.controller_shrink_isr(t), common.become_leader(t)]


def _pre_kip320(offset_rule: Callable) -> Callable[[ModelTables], list[Step]]:
    """KafkaTruncateToHighWatermark / Kip101 / Kip279: the core steps plus a truncation rule."""

    def build(t: ModelTables) -> list[Step]:
        return _shared(t) + [
            classic.leader_expand_isr(t),
            classic.leader_shrink_isr(t),
            common.leader_write(t),
            classic.leader_inc_high_watermark(t),
            classic.become_follower_and_truncate(t, offset_rule(t)),
            classic.follower_replicate(t),
        ]

    return build


def _kip320_first_try(t: ModelTables) -> list[Step]:
    return _shared(t) + [
        kip320_first_try.leader_expand_isr_better_fencing(t),
        kip320_first_try.leader_shrink_isr_better_fencing(t),
        common.leader_write(t),
        kip320_first_try.improved_leader_inc_high_watermark(t),
        kip320_first_try.become_follower(t),
        kip320_first_try.follower_fetch(t),
        kip320_first_try.follower_truncate(t),
    ]


def _kip320(t: ModelTables) -> list[Step]:
    return _shared(t) + [
        kip320.fenced_leader_expand_isr(t),
        kip320.fenced_leader_shrink_isr(t),
        common.leader_write(t),
        kip320.fenced_leader_inc_high_watermark(t),
        classic.become_follower_and_truncate(t, truncation.kip279_first_mismatch_from_tail(t), fenced=True),
        classic.follower_replicate(t, fenced=True),
    ]


STEPS: dict[str, Callable[[ModelTables], list[Step]]] = {
    "truncate-to-hw": _pre_kip320(truncation.truncate_to_high_watermark),
    "kip101": _pre_kip320(truncation.kip101_offset_for_leader_epoch),
    "kip279": _pre_kip320(truncation.kip279_first_mismatch_from_tail),
    "kip320-first-try": _kip320_first_try,
    "kip320": _kip320,
}
