"""The Python daemon a local session the engine creates gets (``spark.daemon``): which masters get
it, that a spark-defaults.conf line wins, that it speaks PySpark's daemon protocol (its first and
only output the port), and that workers forked from it still register the driver's ``__main__``
classes. No JVM is started; the Spark tests' own sessions run every task through it (conftest)."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest
from isrcheck.explorer.search.spark import level, tuning


@pytest.mark.parametrize(("master", "daemon"), [
    ("local[2]", True), ("local[*]", True), ("local", True), ("local-cluster[2,1,1024]", True),
    ("spark://head:7077", False), ("yarn", False), ("k8s://https://head:6443", False), (None, False),
])
def test_only_local_masters_get_the_daemon(master, daemon, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    settings = tuning.engine_settings(master)
    assert (settings.get(tuning.DAEMON_KEY) == tuning.DAEMON) is daemon
    assert {k: v for k, v in settings.items() if k != tuning.DAEMON_KEY} == {
        key: tuning.JIT_C1 for key in tuning.JAVA_OPTION_KEYS}


def test_a_spark_defaults_line_wins_over_the_daemon(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    (tmp_path / "spark-defaults.conf").write_text("spark.python.daemon.module  pyspark.daemon\n")
    assert tuning.DAEMON_KEY not in tuning.engine_settings("local[2]")


def test_the_daemon_writes_its_port_and_nothing_before_it() -> None:
    # PySpark's JVM reads the daemon's port as the first 4 bytes on its stdout; the daemon exits
    # when its stdin (a pipe from the JVM) closes
    proc = subprocess.run([sys.executable, "-c", "import runpy; runpy.run_module("
                           f"{tuning.DAEMON!r}, run_name='__main__', alter_sys=True)"],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert len(proc.stdout) == 4, proc.stdout[:200]
    assert 0 < int.from_bytes(proc.stdout, "big") < 65536
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")[-2000:]


def test_the_daemon_preloads_the_task_modules() -> None:
    code = ("import sys; from isrcheck.explorer.search.spark import daemon; daemon.preload(); "
            "print(all(name in sys.modules for name in daemon.PRELOAD), 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    # NumPy is not among them: the daemon must start no thread before it forks
    assert out.split() == ["True", "False"]


def test_a_worker_forked_from_the_engines_daemon_registers_main_classes(monkeypatch) -> None:
    main = types.ModuleType("__main__")
    main.__spec__ = types.SimpleNamespace(name=tuning.DAEMON)
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(level, "_ALIASED", {})

    class Pos:
        pass

    level.alias_main({"Pos": Pos})
    assert main.Pos is Pos


# What Spark reports when a local executor's Python lacks the package the daemon is run from (a
# PYSPARK_PYTHON without isrcheck): Python's own line for ``-m``, the module name inside parentheses.
DAEMON_IMPORT_FAILED = (
    "org.apache.spark.SparkException: \nError from python worker:\n  /usr/bin/python3: Error while finding "
    "module specification for 'isrcheck.explorer.search.spark.daemon' (ModuleNotFoundError: No module named "
    "'isrcheck')\nPYTHONPATH was:\n  /x/pyspark.zip\norg.apache.spark.SparkException: EOFException occurred "
    "while reading the port number from isrcheck.explorer.search.spark.daemon's stdout.")


def test_a_daemon_that_cannot_import_isrcheck_is_a_user_error_naming_the_module() -> None:
    from isrcheck.explorer.errors import UserError
    from isrcheck.explorer.search.spark.engine import _contract_error
    from isrcheck.explorer.search.spark.items import executor_error

    for mapped in (_contract_error(Exception(DAEMON_IMPORT_FAILED)), executor_error(Exception(DAEMON_IMPORT_FAILED))):
        assert isinstance(mapped, UserError)
        assert "cannot import 'isrcheck'," in str(mapped), str(mapped)
