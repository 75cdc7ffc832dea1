"""WeakIsr and StrongIsr compiled (``_isr.IsrAgreement``), standing in for properties/isr.py's predicates.

``properties/`` never imports ``model``; it asks the tables it is handed for a compiled predicate
(``ModelTables.native_predicate``), which comes from here. The C predicate reads the same common
prefix memo as the Python one and hands every state it does not expect to the Python predicate,
so the answers are the same (``tests/model/test_native.py`` compares them on every reachable state of
the five generations at 2/2/2/2 and on states sampled at 3 replicas).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from . import pure_python

# The log code count up to which the C pair cache (2 bytes a pair, allocated lazily) is used.
MAX_LOG_CODES = 4096
# Offsets the C code assumes within a replica's block: log, HW, leader, cached ISR.
_BLOCK = (0, 1, 3, 4)


def _extension() -> ModuleType | None:
    try:
        from . import _isr
    except ImportError:
        return None
    return _isr


def native_predicate(t: Any, name: str, python: Callable[[tuple], bool]) -> Callable[[tuple], bool]:
    """The compiled predicate of property ``name`` on tables ``t``, or ``python`` itself where
    there is none (only WeakIsr and StrongIsr are compiled; not built; ``ISRCHECK_PURE_PYTHON``;
    another layout)."""
    ext = _extension()
    if ext is None or pure_python() or name not in ("WeakIsr", "StrongIsr"):
        return python
    lay, logs = t.layout, t.logs
    if (lay.LOG, lay.HW, lay.LEADER, lay.ISR) != _BLOCK or not 1 <= lay.n <= 8 or logs.size > MAX_LOG_CODES:
        return python
    return ext.IsrAgreement(tuple(lay.base), lay.q_isr, name == "StrongIsr", logs.common_prefixes, logs.size, python)
