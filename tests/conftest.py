"""Test environment: a private AIRFLOW_HOME with a migrated SQLite metadata DB, set before Airflow loads."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_HOME = Path(tempfile.mkdtemp(prefix="durable-jobs-airflow-"))
os.environ["AIRFLOW_HOME"] = str(_HOME)
os.environ["AIRFLOW__CORE__LOAD_EXAMPLES"] = "False"
# One DAGs folder for dag.test(): the integration DAGs and the example DAGs, linked side by side.
DAGS = _HOME / "dags"
DAGS.mkdir()
for folder in (ROOT / "tests" / "integration" / "dags", ROOT / "example_dags"):
    for source in sorted(folder.glob("[!_]*.py")):
        (DAGS / source.name).symlink_to(source)
os.environ["AIRFLOW__CORE__DAGS_FOLDER"] = str(DAGS)
os.environ["AIRFLOW__CORE__UNIT_TEST_MODE"] = "False"
os.environ.setdefault("AIRFLOW__LOGGING__LOGGING_LEVEL", "INFO")
os.environ["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = f"sqlite:///{_HOME / 'airflow.db'}"
# Test DAGs run many short tries back to back.
os.environ["AIRFLOW__SCHEDULER__TASK_QUEUED_TIMEOUT"] = "600"

subprocess.run(
    [str(Path(sys.executable).with_name("airflow")), "db", "migrate"],
    check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy(),
)

pytest_plugins = ["durable_jobs.testing.pytest_plugin"]
