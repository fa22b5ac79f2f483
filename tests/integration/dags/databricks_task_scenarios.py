"""DAGs for DatabricksNotebookOperator / DatabricksTaskOperator (ours and the official ones) against the emulator."""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.databricks.operators import databricks as official
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators import databricks as ours

START = pendulum.datetime(2026, 1, 1, tz="UTC")
FAST = dict(polling_period_seconds=0.2, databricks_retry_limit=2, databricks_retry_delay=0.01,
            retries=2, retry_delay=timedelta(0), existing_cluster_id="cluster-1")
NOTEBOOK = dict(notebook_path="/Shared/etl", source="WORKSPACE", notebook_params={"day": "{{ ds }}"})
TASK = dict(task_config={"spark_python_task": {"python_file": "dbfs:/etl.py", "parameters": ["{{ ds }}"]}})


def build(dag_id: str, operator: type, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**FAST, **kwargs})
    return dag


notebook_sync = build("dj_notebook_sync", ours.DatabricksNotebookOperator, **NOTEBOOK)
notebook_deferrable = build("dj_notebook_deferrable", ours.DatabricksNotebookOperator, deferrable=True, **NOTEBOOK)
task_sync = build("dj_task_sync", ours.DatabricksTaskOperator, **TASK)
task_deferrable = build("dj_task_deferrable", ours.DatabricksTaskOperator, deferrable=True, **TASK)
official_notebook_sync = build("dj_official_notebook_sync", official.DatabricksNotebookOperator, **NOTEBOOK)
official_notebook_deferrable = build("dj_official_notebook_deferrable", official.DatabricksNotebookOperator,
                                     deferrable=True, **NOTEBOOK)
official_task_sync = build("dj_official_task_sync", official.DatabricksTaskOperator, **TASK)
