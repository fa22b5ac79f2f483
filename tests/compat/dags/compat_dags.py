"""DAGs for the compatibility subset; parsed by dag.test() on Airflow 2.11, 3.2 and 3.3 alike."""

from __future__ import annotations

from datetime import datetime, timedelta

try:
    from airflow.sdk import DAG
except ImportError:  # Airflow 2.x
    from airflow import DAG

from durable_jobs.providers.databricks.operators.databricks import (
    DatabricksNotebookOperator,
    DatabricksRunNowOperator,
    DatabricksSubmitRunOperator,
    DatabricksTaskOperator,
)

JOB_ID = 42  # the run-now job; the tests seed it in the emulator
TASKS = [{"task_key": "a", "notebook_task": {"notebook_path": "/compat"}}]
FAST = {
    "polling_period_seconds": 0.2,
    "retries": 1,
    "retry_delay": timedelta(0),
    "databricks_retry_limit": 1,  # a poll error fails the try at once
    "databricks_retry_delay": 0.1,
}


class _RecordDeferrals:
    """Records every defer() call in ``compat_support.DEFERRALS`` (one list, however often this file is
    imported: Airflow 3 parses it again under its own module name)."""

    def defer(self, **kwargs):
        from compat_support import DEFERRALS

        DEFERRALS.append(self.dag_id)
        return super().defer(**kwargs)


class SubmitRun(_RecordDeferrals, DatabricksSubmitRunOperator):
    pass


class RunNow(_RecordDeferrals, DatabricksRunNowOperator):
    pass


def _dag(dag_id: str) -> DAG:
    return DAG(dag_id, schedule=None, start_date=datetime(2025, 1, 1), catchup=False)


with _dag("compat_submit_sync") as submit_sync:
    SubmitRun(task_id="run", tasks=TASKS, **FAST)

with _dag("compat_run_now_sync") as run_now_sync:
    RunNow(task_id="run", job_id=JOB_ID, **FAST)

with _dag("compat_submit_deferrable") as submit_deferrable:
    SubmitRun(task_id="run", tasks=TASKS, deferrable=True, wait_for_termination=True, **FAST)

with _dag("compat_run_now_deferrable") as run_now_deferrable:
    RunNow(task_id="run", job_id=JOB_ID, deferrable=True, wait_for_termination=True, **FAST)

with _dag("compat_submit_fire_and_forget") as submit_fire_and_forget:
    SubmitRun(task_id="run", tasks=TASKS, deferrable=True, wait_for_termination=False, **FAST)


class Notebook(_RecordDeferrals, DatabricksNotebookOperator):
    pass


class Task(_RecordDeferrals, DatabricksTaskOperator):
    pass


NOTEBOOK = {"notebook_path": "/compat", "source": "WORKSPACE", "existing_cluster_id": "compat-cluster",
            "polling_period_seconds": 0.2, "databricks_retry_limit": 1, "databricks_retry_delay": 0.1,
            "retries": 1, "retry_delay": timedelta(0)}
TASK_CONFIG = {"spark_python_task": {"python_file": "dbfs:/compat.py"}}

with _dag("compat_notebook_sync") as notebook_sync:
    Notebook(task_id="run", **NOTEBOOK)

with _dag("compat_notebook_deferrable") as notebook_deferrable:
    Notebook(task_id="run", deferrable=True, **NOTEBOOK)

with _dag("compat_task_sync") as task_sync:
    Task(task_id="run", task_config=TASK_CONFIG, existing_cluster_id="compat-cluster", polling_period_seconds=0.2,
         databricks_retry_limit=1, databricks_retry_delay=0.1, retries=1, retry_delay=timedelta(0))

with _dag("compat_task_deferrable") as task_deferrable:
    Task(task_id="run", task_config=TASK_CONFIG, existing_cluster_id="compat-cluster", polling_period_seconds=0.2,
         databricks_retry_limit=1, databricks_retry_delay=0.1, retries=1, retry_delay=timedelta(0), deferrable=True)
