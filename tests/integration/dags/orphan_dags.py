"""DAGs for test_orphans: the task's own bound (execution_timeout) and the last try."""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
TASKS = [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl"}}]
FAST = dict(tasks=TASKS, polling_period_seconds=0.2, databricks_retry_limit=2, databricks_retry_delay=0.01,
            retry_delay=timedelta(0))


def _dag(dag_id: str, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        DatabricksSubmitRunOperator(task_id="run", **{**FAST, **kwargs})
    return dag


# 5 s: the bound must come after the submit (a fraction of a second, more on a loaded machine) and before the run
# ends (test_orphans makes it 60 s).
orphan_timeout_retry = _dag("orphan_timeout_retry", execution_timeout=timedelta(seconds=5), retries=1)
orphan_last_try_sync = _dag("orphan_last_try_sync", retries=0)
orphan_last_try_deferrable = _dag("orphan_last_try_deferrable", retries=0, deferrable=True)
orphan_not_last_try = _dag("orphan_not_last_try", retries=1)
orphan_never = _dag("orphan_never", retries=0, cancel_on_kill="never")

#: What the user's own on_failure_callback saw, per call (test_orphans reads it).
USER_CALLBACK_CALLS: list[dict] = []


def users_callback(context) -> None:
    USER_CALLBACK_CALLS.append({"task_id": context["ti"].task_id})


orphan_callback_chain = _dag("orphan_callback_chain", retries=0, on_failure_callback=users_callback)
