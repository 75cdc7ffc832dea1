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
    (tmp_path / "spark-defaults.conf").write_text("spark.executor.defaultJavaOptions:-Dsite=2\n")  # ':' too
    assert tuning.defaults_file_keys() == {"spark.executor.defaultJavaOptions"}


def test_without_spark_home_the_pyspark_package_conf_is_read(tmp_path, monkeypatch) -> None:
    # pyspark from PyPI: spark-submit's Spark home is the package, and its conf/ the site's settings
    pyspark = pytest.importorskip("pyspark")
    monkeypatch.delenv("SPARK_CONF_DIR", raising=False)
    monkeypatch.delenv("SPARK_HOME", raising=False)
    monkeypatch.setattr(pyspark, "__file__", str(tmp_path / "__init__.py"))
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "spark-defaults.conf").write_text("spark.driver.defaultJavaOptions=-Dsite=1\n")
    assert tuning.defaults_file_keys() == {"spark.driver.defaultJavaOptions"}


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
