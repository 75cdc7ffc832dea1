"""Spark fixtures for the distributed engine's tests: one SparkContext per test session.

A process can hold one SparkContext, so the local[2] session and the local-cluster session (two
executor JVMs) take turns: ``spark`` and ``spark_cluster`` each make sure the active session has
their master, and the local-cluster tests are ordered last so the switch happens once.
Executors import ``tests.fixtures`` and these tests' helpers from the repository: its root
(``tests.fixtures.paths.ROOT``) goes on their PYTHONPATH.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.fixtures.paths import ROOT

LOCAL = "local[2]"
CLUSTER = "local-cluster[2,1,1024]"


def _session(master: str):
    pyspark = pytest.importorskip("pyspark")  # noqa: F841  (a missing pyspark is reported as a skip)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(ROOT) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *paths])
    from isrcheck.explorer.search.spark.tuning import engine_settings
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        if active.sparkContext.master == master:
            return active
        active.stop()
    builder = SparkSession.builder
    # what a session the engine creates gets: the JVMs' C1 (less JIT CPU) and, on these local
    # masters, the engine's Python daemon, so every Spark test's tasks run in workers forked from it
    for key, value in engine_settings(master).items():
        builder = builder.config(key, value)
    return (builder.master(master).appName("isrcheck-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
            .config("spark.default.parallelism", "2")
            .getOrCreate())


@pytest.fixture
def spark():
    """A local[2] session (reused across tests)."""
    return _session(LOCAL)


@pytest.fixture
def spark_cluster():
    """A local-cluster session: two executors in their own JVMs and Python workers."""
    return _session(CLUSTER)


def pytest_collection_modifyitems(items):
    # local-cluster tests last, so the session switches from local[2] once.
    items.sort(key=lambda item: "spark_cluster" in getattr(item, "fixturenames", ()))


def pytest_sessionfinish(session, exitstatus):
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        return
    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()
