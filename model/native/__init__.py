"""The classic model's hot path compiled in C (``_classic.c``), used when it was built.

``isrcheck.model.native.kernel`` gathers the tables ``isrcheck.model.steps.next`` builds (log tables, caught-up and
truncation rules, request decoding, action objects) and hands them to the C successor function;
``isrcheck.model.native.packing`` does the same for ``isrcheck.model.encoding.packed``. Both answer ``None`` when the
extension is missing (no compiler at install time), when ``ISRCHECK_PURE_PYTHON=1`` is set, or when
the configuration has option fields; the callers then keep the Python functions.
"""

from __future__ import annotations

import os
from types import ModuleType


def pure_python() -> bool:
    """Whether ``ISRCHECK_PURE_PYTHON`` asks for the Python hot path (A/B runs, tests)."""
    return os.environ.get("ISRCHECK_PURE_PYTHON", "") not in ("", "0")


def extension() -> ModuleType | None:
    """The compiled module, or ``None`` if it was not built (``pip install -e .`` builds it)."""
    try:
        from . import _classic
    except ImportError:
        return None
    return _classic
