"""What each field of a trace means: the model's one-line descriptions (``field_docs``, an
optional hook of ``isrcheck.explorer.contract``) looked up for the flattened paths that traces show.

A trace names a field by its flattened path (``replicaState.2.hw``: replica 2's copy); a model
describes the field once, without the replica or broker (``replicaState.hw``). So a path is looked
up as given, then with its numeric parts dropped, then by its longest described prefix
(``partitionReplicaState.1.2.leo`` under ``partitionReplicaState``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from isrcheck.explorer.contract import field_docs


def _lookup(docs: dict[str, str], path: str) -> tuple[str, str]:
    """(the described key, its description) for ``path``; ("", "") when nothing describes it."""
    if path in docs:
        return path, docs[path]
    parts = [p for p in path.split(".") if not p.isdigit()]
    for k in range(len(parts), 0, -1):
        key = ".".join(parts[:k])
        if docs.get(key):
            return key, docs[key]
    return "", ""


def describer(model: Any) -> Callable[[str], str]:
    """A function from a flattened path to its description ("" when the model says nothing)."""
    docs = field_docs(model)
    return lambda path: _lookup(docs, path)[1]


def glossary(model: Any, paths: Iterable[str]) -> list[tuple[str, str]]:
    """(field, description) for the fields of ``paths``, each described field once, in the order
    they come (replica 2's ``replicaState.2.hw`` and replica 1's share ``replicaState.hw``)."""
    docs = field_docs(model)
    out: dict[str, str] = {}
    for path in paths:
        key, text = _lookup(docs, path)
        if key and key not in out:
            out[key] = text
    return list(out.items())
