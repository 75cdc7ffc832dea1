"""What a property is built from: the model's tables, as ``isrcheck.model.tables.ModelTables`` provides them.

``properties/`` never imports ``model`` (``model`` builds its properties, so the import runs one
way only); everything a property needs to read a state comes through this interface:

- ``config``: the bounds (``replicas``, ``log_size``, ``max_records``, ``max_leader_epoch``);
- ``options``, ``consumers``: the model's options (``acks``, ``max_crashes``, ``consumer_reads``...);
- ``layout``: the classic fields' index arithmetic (``base``, ``g``, ``members``, ``offsets``...);
- ``fields``: the option fields' positions (``fields.acked``, -1 when absent) and ``served_conflict``;
- ``logs``: the log tables (``records``, ``length``, ``common_prefix``...);
- ``actions.kinds``: the action classes, for transition properties that test a step's kind;
- optionally ``native_predicate(name, python)``: a compiled predicate standing in for ``python``
  (the same answers), or ``python`` itself.
"""

from __future__ import annotations

from typing import Any, Protocol


class Tables(Protocol):
    config: Any
    options: Any
    consumers: Any
    layout: Any
    fields: Any
    logs: Any
    actions: Any
