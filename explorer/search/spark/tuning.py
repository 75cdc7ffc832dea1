"""Spark settings a session the engine creates gets for speed, and which a user's own settings win over.

The engine's levels are a few large byte blocks moved between Spark's JVM and Python workers: the
JVM's work is copying bytes (disk store, shuffle files, sockets), which runs as well in code the
JVM's first compiler (C1) makes as in the optimizing one's (C2). C2 compiling Spark's scheduler
and serializers in the first minutes of a run took about half the JVM's CPU at 10^6 states
(docs/spark.md, "Issue 24, fourth round"), on cores the Python workers need. So the JVMs stop at
C1 (``-XX:TieredStopAtLevel=1``).

Precedence (docs/spark.md, "Spark settings the engine sets"): only a session the engine creates
gets these (an active session, from spark-submit or a notebook, is used as it is); the options go
in ``spark.{driver,executor}.defaultJavaOptions``, which Spark puts before the
``extraJavaOptions`` a user sets, and the JVM takes the last of a repeated option, so
``--conf spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=4`` (or a spark-defaults.conf line)
restores C2; a ``defaultJavaOptions`` key that spark-defaults.conf sets is left to it.

On a local master (``local[N]``, ``local-cluster``) the Python daemon that forks the workers is
``spark/daemon.py`` (``spark.python.daemon.module``): it imports the engine's modules once, so each
worker it forks starts with them (docs/spark.md, "seventh round"). Not on other masters, whose
executors may lack ``isrcheck`` until a task says so; a spark-defaults.conf line wins here too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

JIT_C1 = "-XX:TieredStopAtLevel=1"
JAVA_OPTION_KEYS = ("spark.driver.defaultJavaOptions", "spark.executor.defaultJavaOptions")
DAEMON_KEY = "spark.python.daemon.module"
DAEMON = "isrcheck.explorer.search.spark.daemon"


def _conf_dir() -> str | None:
    """Where spark-submit reads spark-defaults.conf: ``$SPARK_CONF_DIR``, else ``$SPARK_HOME/conf``,
    else (pyspark installed from PyPI, no SPARK_HOME) the conf folder of the pyspark package, which
    is the Spark home spark-submit then uses."""
    if os.environ.get("SPARK_CONF_DIR"):
        return os.environ["SPARK_CONF_DIR"]
    if os.environ.get("SPARK_HOME"):
        return os.path.join(os.environ["SPARK_HOME"], "conf")
    try:
        import pyspark
    except ImportError:
        return None
    return os.path.join(os.path.dirname(pyspark.__file__), "conf")


def defaults_file_keys() -> set[str]:
    """The keys spark-defaults.conf sets, which spark-submit applies to every session it starts;
    empty when there is no such file. The file is a Java properties file: a key ends at the first
    ``=``, ``:`` or blank."""
    conf_dir = _conf_dir()
    if conf_dir is None:
        return set()
    try:
        text = Path(conf_dir, "spark-defaults.conf").read_text(errors="replace")
    except OSError:
        return set()
    keys = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")):
            keys.add(re.split(r"[=:\s]", line, maxsplit=1)[0])
    return keys


def is_local(master: str | None) -> bool:
    """Whether ``master`` runs every executor on this machine, with the driver's interpreter."""
    return master is not None and (master == "local" or master.startswith(("local[", "local-cluster[")))


def engine_settings(master: str | None = None) -> dict[str, str]:
    """The settings the engine adds to a session it creates for ``master`` (the JVMs' compiler tier;
    on a local master, the Python daemon), less the keys spark-defaults.conf already sets."""
    taken = defaults_file_keys()
    settings = {key: JIT_C1 for key in JAVA_OPTION_KEYS}
    if is_local(master):
        settings[DAEMON_KEY] = DAEMON
    return {key: value for key, value in settings.items() if key not in taken}
