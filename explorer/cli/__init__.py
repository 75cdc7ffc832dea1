"""The ``isrcheck`` command: ``main`` parses the subcommand and maps outcomes to exit statuses.

One module per group of subcommands: ``main`` (check, replay, models, properties, scenarios,
scenario), ``graph`` (``--graph`` and ``--fairness`` on check), ``html`` (``--html`` and ``show``),
``simulate``, ``symbolic`` (bmc, prove); ``model_fault`` renders an exit-4 report. The top layer:
it may import every other package of ``isrcheck.explorer``, and nothing imports it.
"""
