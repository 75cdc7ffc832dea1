"""WeakIsr, StrongIsr and LeaderInIsr (``isrcheck.properties.isr``) as formulas over ``KafkaVars``.

Same meaning as the explicit predicates: a presumed leader with HW > 0 and each member of its
cached (WeakIsr) or the quorum (StrongIsr) ISR hold the same record at every offset below that HW
(and both logs reach it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .vars import KafkaVars


def agree_below(o: Any, v: KafkaVars, a: int, b: int, upto: Any, size: int | None) -> Any:
    """Replicas a and b hold the same records at every offset below ``upto``."""
    return o.forall(0, upto, lambda k: o.and_(
        k < v.length[a], k < v.length[b],
        o.sel(v.rid[a], k) == o.sel(v.rid[b], k), o.sel(v.rep[a], k) == o.sel(v.rep[b], k)), size)


def isr_agreement(n: int, size: int | None, quorum: bool) -> Callable[[Any, KafkaVars], Any]:
    def prop(o: Any, v: KafkaVars) -> Any:
        parts = []
        for leader in range(n):
            for j in range(n):
                member = v.qisr[j] if quorum else v.isr[leader][j]
                parts.append(o.implies(o.and_(v.ld[leader] == leader, v.hw[leader] > 0, member),
                                       agree_below(o, v, leader, j, v.hw[leader], size)))
        return o.and_(*parts)

    return prop


def leader_in_isr(n: int) -> Callable[[Any, KafkaVars], Any]:
    def prop(o: Any, v: KafkaVars) -> Any:
        return o.and_(*(o.implies(v.ql == r, v.qisr[r]) for r in range(n)))

    return prop


def symbolic_properties(n: int, size: int | None) -> dict[str, Callable[[Any, KafkaVars], Any]]:
    return {
        "WeakIsr": isr_agreement(n, size, quorum=False),
        "StrongIsr": isr_agreement(n, size, quorum=True),
        "LeaderInIsr": leader_in_isr(n),
    }
