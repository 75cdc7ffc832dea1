"""isrcheck's generic checking engines. Nothing here knows Kafka: models arrive through
``isrcheck.explorer.registry``.

The layout is the architecture, one layer on the next (``tests/test_import_graph.py`` enforces it):

- the API, at the top of this package: ``contract`` (the ``Model`` protocol, ``Property``),
  ``errors`` (exit statuses), ``result`` (``CheckResult``, ``Trace``), ``selection`` (properties by
  name), ``registry`` and ``scenarios`` (models and the catalogue by name), ``outputs`` (files
  written atomically), ``progress`` (where every engine reports on a long run). They import no
  package below;
- ``search/`` (explicit-state engines: local, parallel, Spark, simulation, and their stores) and
  ``symbolic/`` (z3: BMC, induction) on the API;
- ``liveness/`` (state graph, fair cycles, lassos) on search;
- ``traces/`` (views, text, ITF, HTML, replay, regression, minimize) on the API and liveness;
- the front doors a program calls: ``check`` (``isrcheck.check``: options validated, an engine
  chosen), ``stateful`` (a model as a Hypothesis state machine) and this package's ``__init__``,
  which imports ``traces`` so that every result prints its traces and shows in a notebook
  (``isrcheck.explorer.result.RENDERERS``). The public names themselves are re-exported once, by
  the namespace (``import isrcheck``: ``isrcheck.check``, ``isrcheck.Property``, ...);
- ``cli/``: the ``isrcheck`` command, on everything.
"""

from isrcheck.explorer import traces  # noqa: F401  (installs how results print and show in a notebook)
