"""Compatibility subset: a private AIRFLOW_HOME and migrated SQLite DB for whichever Airflow runs it.

Run it with the compat venvs' own python and this folder as rootdir (``make compat``)::

    .venv-compat/3.2/bin/python -m pytest -c tests/compat/pytest.ini tests/compat

The main suite (``pytest tests`` on Airflow 3.3) also walks into this folder; there this conftest
does nothing and its tests are not collected, so the two setups never meet.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DAGS = HERE / "dags"


def _is_compat_run(config: pytest.Config) -> bool:
    return Path(str(config.rootpath)).resolve() == HERE


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if not _is_compat_run(config) and HERE in Path(collection_path).resolve().parents:
        return True
    return None


def pytest_configure(config: pytest.Config) -> None:
    if not _is_compat_run(config):
        return
    home = Path(tempfile.mkdtemp(prefix="durable-jobs-compat-"))
    os.environ.update(
        AIRFLOW_HOME=str(home),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__CORE__DAGS_FOLDER=str(DAGS),
        AIRFLOW__CORE__UNIT_TEST_MODE="False",
        AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=f"sqlite:///{home / 'airflow.db'}",
        AIRFLOW__SCHEDULER__TASK_QUEUED_TIMEOUT="600",
        AIRFLOW__LOGGING__LOGGING_LEVEL=os.environ.get("AIRFLOW__LOGGING__LOGGING_LEVEL", "INFO"),
    )
    sys.path.insert(0, str(DAGS))
    subprocess.run(
        [str(Path(sys.executable).with_name("airflow")), "db", "migrate"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy(),
    )
    _reuse_in_process_execution_api()


def _reuse_in_process_execution_api() -> None:
    """One in-process Execution API app for the session instead of one per dag.test() step (Airflow 3).

    Airflow 3's dag.test() builds a new app (FastAPI + cadwyn route generation, ~3 s on a 2-core
    machine) for every task try, inline trigger run and resume; the app holds no per-run state (the
    DAG bag is overridden on each call), so the compat runs share one. No-op on Airflow 2.
    """
    try:
        from airflow.sdk.execution_time import supervisor
    except ImportError:
        return
    factory = getattr(supervisor, "in_process_api_server", None)
    if factory is not None and not hasattr(factory, "cache_info"):
        supervisor.in_process_api_server = functools.lru_cache(maxsize=1)(factory)


# The emulator fixtures come from durable_jobs.testing.pytest_plugin: pytest.ini loads it with
# `-p` in the compat run; the main suite's rootdir conftest lists it in pytest_plugins.


@pytest.fixture
def emulator(databricks_conn_env):
    """A started Databricks emulator that the connection ``databricks_default`` points at; fast runs."""
    from compat_dags import JOB_ID

    databricks_conn_env.configure(pending_seconds=0.1, running_seconds=0.4, terminating_seconds=0.05)
    databricks_conn_env.seed_job(job_id=JOB_ID, name="compat")
    return databricks_conn_env
