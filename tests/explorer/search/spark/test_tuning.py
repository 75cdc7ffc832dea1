"""The settings a session the engine creates gets (``spark.tuning``), and what wins over them. No
JVM is started: the session's settings are caught on their way to Spark's launcher."""

from __future__ import annotations

import pytest
from isrcheck.explorer.errors import UserError
from isrcheck.explorer.search.spark import session, tuning


def test_the_engine_sets_the_jit_tier_unless_spark_defaults_does(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    assert tuning.engine_settings() == {key: tuning.JIT_C1 for key in tuning.JAVA_OPTION_KEYS}
    (tmp_path / "spark-defaults.conf").write_text(
        "# site settings\nspark.driver.defaultJavaOptions   -Dsite=1\nspark.executor.memory=2g\n")
    assert tuning.defaults_file_keys() == {"spark.driver.defaultJavaOptions", "spark.executor.memory"}
    assert tuning.engine_settings() == {"spark.executor.defaultJavaOptions": tuning.JIT_C1}


def test_a_session_the_engine_creates_gets_them(tmp_path, monkeypatch) -> None:
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    seen = {}

    def launch(settings: dict) -> None:
        seen.update(settings)
        raise RuntimeError("not started in this test")

    monkeypatch.setattr(session, "_start_gateway", launch)
    with pytest.raises(UserError):
        session.get_session("local[1]")
    assert seen["spark.driver.defaultJavaOptions"] == seen["spark.executor.defaultJavaOptions"] == tuning.JIT_C1
    assert seen["spark.master"] == "local[1]"
