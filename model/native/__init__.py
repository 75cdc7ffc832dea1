"""The classic model's hot path in C.

``isrcheck.model.native.kernel`` gathers the tables ``isrcheck.model.steps.next`` builds (log tables, caught-up and
truncation rules, request decoding, action objects) and hands them to the C successor function,
generated from the step descriptions (``cwriter.py``) and compiled once per source (``compiled.py``,
where a C compiler is found at run time); ``isrcheck.model.native.packing`` hands
``isrcheck.model.encoding.packed``'s to ``_classic.c`` (built at install time, optional). Both answer
``None`` when there is no compiler (or the extension was not built), when ``ISRCHECK_PURE_PYTHON=1``
is set, or when the configuration has option fields; the callers then keep the Python functions.
"""

from __future__ import annotations

import os
from types import ModuleType


def pure_python() -> bool:
    """Whether ``ISRCHECK_PURE_PYTHON`` asks for the Python hot path (A/B runs, tests)."""
    return os.environ.get("ISRCHECK_PURE_PYTHON", "") not in ("", "0")


def extension() -> ModuleType | None:
    """The packing module, or ``None`` if it was not built (``pip install -e .`` builds it)."""
    try:
        from . import _classic
    except ImportError:
        return None
    return _classic
