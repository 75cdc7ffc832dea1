"""The Spark session of a run and what executors need to rebuild the model.

An active SparkSession is reused (tests and notebooks create one); under spark-submit the session
is built with spark-submit's master and settings, which win over the engine's (a ``--master`` naming
another master is refused); otherwise one is built for ``master`` (default ``local[*]``). Workers must run this
interpreter (``PYSPARK_PYTHON``), and on one machine Spark should bind to loopback.

The model travels as one cloudpickled payload that executors unpickle once per Python worker
(``level.load_context``). What executors cannot import is shipped with it, so that a model that
runs with the local engine runs on Spark unchanged:

- a model loaded from a user's file (``isrcheck.explorer.registry`` registers it as
  ``isrcheck_user_model_<stem>``): the file, imported there under the same name;
- modules the driver imported from that file's folder or from the folder of the script run as
  ``__main__`` (helpers beside the model): one zip, put on the executors' ``sys.path``;
- classes defined in ``__main__`` (a script or a notebook): by value in the payload, and
  registered in the executors' ``__main__`` so that states made of them pickle both ways.

The ``isrcheck`` package itself, and a model's installed package, must be importable on executors
(``pip install`` the project there, or ``spark-submit --py-files``; see docs/spark.md).
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

USER_MODULE_PREFIX = "isrcheck_user_model_"


def get_session(master: str | None, driver_memory: str | None = None) -> tuple[Any, bool]:
    """(SparkSession, created): the active session, or a new one for ``master``. Under spark-submit a
    ``driver_memory`` is a UserError: the driver's JVM already runs with spark-submit's heap."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from isrcheck.explorer.search.spark.tuning import engine_settings
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    submitted = _submitted_settings()
    if submitted is not None:
        # spark-submit started the JVM with its --master and --conf: those win over ours (the
        # session it would create is the one a user asked for). A --master of ours that names
        # another master would be silently unused, so it is refused, saying where it goes.
        submitted_master = submitted.get("spark.master")
        if master and submitted_master and master != submitted_master:
            from isrcheck.explorer.errors import UserError

            raise UserError(f"--master {master} has no effect under spark-submit, which started the driver with "
                            f"--master {submitted_master}; give the master to spark-submit instead: spark-submit "
                            f"--master {master} ... (or leave --master out)")
        master = submitted_master or master
        if driver_memory:
            # The driver's JVM is already running with spark-submit's heap: the setting would be
            # recorded and have no effect, so the user is told where it goes instead.
            from isrcheck.explorer.errors import UserError

            raise UserError(f"--driver-memory {driver_memory} has no effect under spark-submit (the driver's JVM is "
                            f"already running); give it to spark-submit instead: spark-submit --driver-memory "
                            f"{driver_memory} ...")
    settings = {"spark.app.name": "isrcheck", "spark.master": master or "local[*]",
                "spark.ui.showConsoleProgress": "false",
                # A block whose second copy went with a lost executor gets a new one on another
                # executor, where there is one, so that the run survives a later loss too (lost.py).
                "spark.storage.replication.proactive": "true",
                # the JVMs' compiler tier, the Python daemon (tuning.py says why, and what wins over it)
                **engine_settings(master or "local[*]")}
    if driver_memory:
        settings["spark.driver.memory"] = driver_memory
    if submitted is not None:
        settings = {key: value for key, value in settings.items() if key not in submitted}
    builder = SparkSession.builder
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        _start_gateway(settings)
        session = builder.getOrCreate()
    except Exception as exc:
        from isrcheck.explorer.errors import UserError

        raise UserError(f"could not start Spark with master {master or 'local[*]'!r}: {exc}; check the URL "
                        "(local[*], local[N], spark://host:7077, yarn, k8s://...) and that Java 17+ is installed") \
            from None
    _quiet_unpersist_warning(session.sparkContext)
    return session, True


def _submitted_settings() -> dict[str, str] | None:
    """The settings spark-submit gave the JVM it started before this process (its ``--master``,
    ``--conf`` and spark-defaults.conf, which reach the JVM as system properties), or None when this
    process was not started by spark-submit."""
    if "PYSPARK_GATEWAY_PORT" not in os.environ:
        return None
    from pyspark import SparkConf, SparkContext

    SparkContext._ensure_initialized()  # connects to spark-submit's JVM; starts no context
    return dict(SparkConf(loadDefaults=True).getAll())


def _start_gateway(settings: dict[str, str]) -> None:
    """Start Spark's JVM (and so, in local mode, its executors and Python workers) in a process
    group of its own. A Ctrl-C in a terminal goes to the whole foreground group: PySpark's Python
    workers turn it into KeyboardInterrupt tracebacks in the middle of their tasks, which the JVM
    logs. Outside the group only the driver gets it, and the engine cancels the jobs itself
    (``isrcheck.explorer.search.spark.interrupt``). The JVM still dies with the driver: it exits when its stdin,
    a pipe from this process, closes."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if os.name != "posix" or "PYSPARK_GATEWAY_PORT" in os.environ:
        return  # Windows, or a JVM that spark-submit started before this process
    with SparkContext._lock:
        if SparkContext._gateway is not None:
            return
        conf = SparkConf(loadDefaults=False)
        conf.setAll(list(settings.items()))
        SparkContext._gateway = launch_gateway(conf, popen_kwargs={"start_new_session": True})
        SparkContext._jvm = SparkContext._gateway.jvm


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


def helper_modules() -> dict[str, tuple[str, Path]]:
    """{module name: (path inside the shipped zip, file)} of every module the driver imported from
    the folder of a user's model file, or of the script run as ``__main__``: helpers that sit beside
    the model (``import helpers``, packages too) and that executors, which have neither folder on
    their path, cannot import otherwise. A module counts when its file is where its name says
    within that folder (``pkg.mod`` -> ``pkg/mod.py`` or ``pkg/mod/__init__.py``), which leaves
    out installed packages and the standard library wherever the folder is."""
    folders = {Path(path).resolve().parent for _, path in user_modules()}
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if main_file:
        folders.add(Path(main_file).resolve().parent)
    found: dict[str, tuple[str, Path]] = {}
    for name, module in sorted(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if (not path or not path.endswith(".py") or name == "__main__" or name.startswith(USER_MODULE_PREFIX)
                or name.split(".")[0] == "isrcheck"):  # the engine itself must be installed on executors
            continue
        path = Path(path).resolve()
        stem = name.replace(".", "/")
        for folder in folders:
            rel = path.relative_to(folder).as_posix() if path.is_relative_to(folder) else None
            if rel in (f"{stem}.py", f"{stem}/__init__.py"):
                found[name] = (rel, path)
    return found


def main_classes() -> dict[str, type]:
    """The classes defined in ``__main__`` (a script, or a notebook's cells), by name. cloudpickle
    ships them by value inside the payload; executors, whose ``__main__`` is PySpark's worker,
    register them there under the same names (``level.alias_main``), so that states and actions
    made of them pickle between the driver and executors as ``__main__.<name>``, as PySpark's
    plain pickle of RDD records writes them."""
    main = sys.modules.get("__main__")
    return {name: value for name, value in sorted(vars(main).items()) if isinstance(value, type)
            and value.__module__ == "__main__" and value.__qualname__ == name} if main else {}


def _ship(sc: Any, name: str, data: bytes) -> str:
    """``data`` as a file on every executor, under a name that includes its content hash: Spark
    refuses two different files of one name in a session, and an edited file must not reuse the
    old one. Returns the name to look it up with ``SparkFiles.get``."""
    stem, _, suffix = name.rpartition(".")
    shipped = Path(tempfile.gettempdir()) / "isrcheck-shipped" / (
        f"{stem}-{hashlib.blake2b(data, digest_size=8).hexdigest()}.{suffix}")
    if not shipped.exists():
        shipped.parent.mkdir(parents=True, exist_ok=True)
        tmp = shipped.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, shipped)
    sc.addFile(str(shipped))
    return shipped.name


def _helpers_zip(helpers: dict[str, tuple[str, Path]]) -> bytes:
    """The helper modules as a zip with fixed timestamps (the same files give the same bytes, so the
    same shipped name)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, path in sorted(set(helpers.values())):
            archive.writestr(zipfile.ZipInfo(rel, date_time=(1980, 1, 1, 0, 0, 0)), path.read_bytes())
    return buffer.getvalue()


def make_payload(sc: Any, model: Any, props: Any, symmetry: bool, check_deadlock: bool) -> tuple:
    """What executors need to rebuild the run's context, and the user files shipped for it:
    (digest, cloudpickled (model, props, symmetry, check_deadlock, classes of __main__), user model
    modules as (module name, shipped file), the shipped zip of helper modules or None)."""
    from pyspark import cloudpickle

    modules = tuple((name, _ship(sc, Path(path).name, Path(path).read_bytes())) for name, path in user_modules())
    helpers = helper_modules()
    helpers_zip = _ship(sc, "isrcheck-helpers.zip", _helpers_zip(helpers)) if helpers else None
    try:
        blob = cloudpickle.dumps((model, props, symmetry, check_deadlock, main_classes()))
    except Exception:
        # Some class of __main__ unrelated to the model cannot be pickled: ship the model alone, as
        # before; its own classes still travel by value with it.
        blob = cloudpickle.dumps((model, props, symmetry, check_deadlock, {}))
    return hashlib.blake2b(blob, digest_size=16).hexdigest(), blob, modules, helpers_zip
