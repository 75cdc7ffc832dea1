"""The Spark session of a run and what executors need to rebuild the model.

An active SparkSession is reused (tests and notebooks create one; spark-submit creates one before
the CLI runs); otherwise one is built for ``master`` (default ``local[*]``). Workers must run this
interpreter (``PYSPARK_PYTHON``), and on one machine Spark should bind to loopback.

The model travels as one cloudpickled payload that executors unpickle once per Python worker
(``level.load_context``). A model loaded from a user's file (``explorer.registry`` registers it as
``isrcheck_user_model_<stem>``) is not importable on executors: its file is shipped with
``addFile`` and imported there under the same name before the payload is unpickled. The
``explorer`` package itself, and a model's installed package, must be importable on executors
(``pip install`` the project there, or ``spark-submit --py-files``; see docs/spark.md).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

USER_MODULE_PREFIX = "isrcheck_user_model_"


def get_session(master: str | None, driver_memory: str | None = None) -> tuple[Any, bool]:
    """(SparkSession, created): the active session, or a new one for ``master``."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    builder = (SparkSession.builder.appName("isrcheck").master(master or "local[*]")
               .config("spark.ui.showConsoleProgress", "false"))
    if driver_memory:
        builder = builder.config("spark.driver.memory", driver_memory)
    try:
        session = builder.getOrCreate()
    except Exception as exc:
        from explorer.errors import UserError

        raise UserError(f"could not start Spark with master {master or 'local[*]'!r}: {exc}; check the URL "
                        "(local[*], local[N], spark://host:7077, yarn, k8s://...) and that Java 17+ is installed") \
            from None
    _quiet_unpersist_warning(session.sparkContext)
    return session, True


def _quiet_unpersist_warning(sc: Any) -> None:
    """Unpersisting a local-checkpointed RDD logs a warning that its lineage is gone; the engine does
    it on purpose once per level. Only on a session this module created: a user's own session keeps
    its logging."""
    try:
        jvm = sc._jvm
        level = jvm.org.apache.logging.log4j.Level.ERROR
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel("org.apache.spark.api.python.PythonRDD", level)
    except Exception:  # logging is cosmetic; never fail a run for it
        pass


def user_modules() -> list[tuple[str, str]]:
    """(module name, file) of every model module loaded from a user's file."""
    found = []
    for name, module in sorted(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name.startswith(USER_MODULE_PREFIX) and path:
            found.append((name, path))
    return found


def make_payload(sc: Any, model: Any, props: Any, symmetry: bool, check_deadlock: bool) -> tuple:
    """What executors need to rebuild the run's context, and the user files shipped for it."""
    from pyspark import cloudpickle

    modules = []
    for name, path in user_modules():
        # Shipped under a name that includes its content hash: Spark refuses two different files
        # of the same name in one session, and an edited file must not reuse the old one.
        data = Path(path).read_bytes()
        shipped = Path(tempfile.gettempdir()) / "isrcheck-shipped" / (
            f"{Path(path).stem}-{hashlib.blake2b(data, digest_size=8).hexdigest()}.py")
        if not shipped.exists():
            shipped.parent.mkdir(parents=True, exist_ok=True)
            tmp = shipped.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, shipped)
        sc.addFile(str(shipped))
        modules.append((name, shipped.name))
    blob = cloudpickle.dumps((model, props, symmetry, check_deadlock))
    return hashlib.blake2b(blob, digest_size=16).hexdigest(), blob, tuple(modules)
