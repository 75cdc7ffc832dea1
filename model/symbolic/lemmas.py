"""Well-formedness and candidate lemmas over ``KafkaVars`` for induction (filled in below)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .vars import KafkaVars


def type_ok(o: Any, v: KafkaVars, n: int) -> Any:
    """What every reachable state satisfies by construction of the variables' ranges."""
    parts = [v.nrid >= 0, v.nreq >= 0, v.ql >= -1, v.ql < n]
    for i in range(n):
        parts += [v.length[i] >= 0, v.hw[i] >= 0, v.ep[i] >= -1, v.ep[i] < v.nreq, v.ld[i] >= -1, v.ld[i] < n]
    return o.and_(*parts)


def candidate_lemmas(n: int) -> dict[str, Callable[[Any, KafkaVars], Any]]:
    return {}
