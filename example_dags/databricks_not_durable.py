"""Turning crash recovery off for a whole DAG: ``default_args={"durable": False}``.

Useful in tests, or when the external system deduplicates by itself (seed section 5). With
``durable=False`` the operators never touch ``task_state_store``: every try submits a new run.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="example_databricks_not_durable",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    default_args={"durable": False, "retries": 1},
    tags=["durable-jobs", "databricks", "test"],
) as dag:
    DatabricksSubmitRunOperator(
        task_id="smoke_test",
        tasks=[{"task_key": "smoke", "notebook_task": {"notebook_path": "/Shared/smoke_test"}}],
    )
