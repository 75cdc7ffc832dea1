"""The distributed engine on Apache Spark: level-synchronous breadth-first search with the frontier
sharded across executors (see docs/spark.md).

``engine`` the level loop on the driver, ``level`` the per-batch expansion on executors, ``store``
the visited blocks and parent records, ``checkpoint``/``resume`` level boundaries on disk,
``interrupt`` a clean stop on Ctrl-C, ``session`` the Spark session and what executors are shipped.
"""
