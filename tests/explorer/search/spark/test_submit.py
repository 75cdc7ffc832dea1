"""Under spark-submit, the session a run builds takes spark-submit's master and settings.

spark-submit starts the JVM before the Python script, with its ``--master`` and ``--conf`` as the
JVM's settings; there is no active session yet. The engine used to build its own with
``local[*]`` and its own settings, so a ``spark-submit --master yarn`` run would have searched on
the driver alone. One spark-submit process (about 10 s: a JVM and a session). A ``--driver-memory``
given to the CLI there is refused (exit 2): the driver's JVM already runs with spark-submit's heap; so
is a ``--master`` naming another master than spark-submit's (it would be silently unused).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyspark


def test_spark_submit_master_and_conf_win_over_the_engines(tmp_path: Path) -> None:
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent("""
        from isrcheck.explorer.errors import UserError
        from isrcheck.explorer.search.spark.session import get_session
        try:
            get_session(None, "2g")
        except UserError as exc:
            print("REFUSED", "spark-submit --driver-memory 2g" in str(exc))
        try:
            get_session("local[2]")
        except UserError as exc:
            print("OTHER", "spark-submit --master local[2]" in str(exc) and "--master local[1]" in str(exc))
        session, created = get_session("local[1]")  # the master spark-submit was given: not refused
        conf = session.sparkContext.getConf()
        print("MASTER", session.sparkContext.master)
        print("DAEMON", conf.get("spark.python.daemon.module", "-"))
        print("MINE", conf.get("spark.isrcheck.probe", "-"))
        session.stop()
    """))
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
           "SPARK_LOCAL_IP": "127.0.0.1"}
    env.pop("PYSPARK_GATEWAY_PORT", None)
    out = subprocess.run([str(submit), "--master", "local[1]", "--conf", "spark.python.daemon.module=pyspark.daemon",
                          "--conf", "spark.isrcheck.probe=yes", str(script)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if line.split(" ", 1)[0] in
                 ("MASTER", "DAEMON", "MINE", "REFUSED", "OTHER"))
    # a --driver-memory of the CLI would be recorded with no effect on the running JVM: refused, saying where it goes
    assert lines == {"MASTER": "local[1]", "DAEMON": "pyspark.daemon", "MINE": "yes", "REFUSED": "True",
                     "OTHER": "True"}, out.stdout
