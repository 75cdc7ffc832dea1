"""Where a model object came from: its spec and every option it was built with, defaults included.

The registry records this for each model it builds (``registry.make_model``), so that a run's
identity (the Spark engine's checkpoints) can name the model by what built it, not by what its
``repr`` happens to print: a factory parameter a repr leaves out is still an option of the run.
A model built by a program without the registry has no origin; callers fall back to its
attributes.

Origins are kept in a dict keyed by the model's ``id`` together with the model itself (a strong
reference, so an id is never reused while its entry exists): models are few per process, and a
model need not accept new attributes or weak references.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Origin:
    """A registered model's name, or a model file's absolute path and the digest of its content;
    the factory's name; every option (name -> value), defaults filled from the factory's signature."""

    spec: str
    source: str
    options: tuple[tuple[str, Any], ...]


_ORIGINS: dict[int, tuple[Any, Origin]] = {}


def record(model: Any, spec: str, file: str | None, factory_name: str, options: dict[str, Any]) -> None:
    """Remember how ``model`` was built. ``file``: the model file of a file spec, else None."""
    if file is not None:
        path = os.path.abspath(file)
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()[:16]
        source = f"model file {path}:{factory_name} (content sha256 {digest})"
    else:
        source = f"registered model {spec!r} ({factory_name})"
    _ORIGINS[id(model)] = (model, Origin(spec, source, tuple(sorted(options.items()))))


def origin_of(model: Any) -> Origin | None:
    """How ``model`` was built, or None for a model the registry did not build."""
    entry = _ORIGINS.get(id(model))
    return entry[1] if entry is not None and entry[0] is model else None
