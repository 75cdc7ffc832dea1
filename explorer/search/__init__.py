"""The explicit-state search engines and what they share.

- ``local``: breadth-first search in one process, level by level, and the ``CheckResult`` of every
  local run; ``parallel/``: the same search on every core (forked workers);
- ``spark/``: the same search on Apache Spark, the frontier sharded across executors;
- ``simulate``: random behaviours of bounded depth under a seed (TLC's ``-simulate``);
- the parts they are built from: ``fingerprint`` and ``store_compact`` (state identities and the
  compact visited sets), ``rebuild`` (traces rebuilt from keys by re-running the model), ``audit``
  (contract checks on sampled expansions), ``memory`` (resident memory and its ceiling) and
  ``progress`` (the snapshot a run reports on the API's progress line).

Layering (``tests/test_import_graph.py``): this package imports only the API modules at the top of
``isrcheck.explorer`` (contract, errors, result, selection, progress), never traces, liveness or the command line.
"""
