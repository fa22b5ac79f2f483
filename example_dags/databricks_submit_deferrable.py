"""One deferrable task: the Triggerer polls, the worker slot is free, and the submit is crash-safe.

``deferrable=True`` alone does not imply ``wait_for_termination=True``: set both (seed section 6).
Unlike the official operator, the run id is checkpointed *before* ``defer()``, so a worker that
dies between submit and deferral reconnects on retry instead of submitting a second run.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="example_databricks_submit_deferrable",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "databricks"],
) as dag:
    DatabricksSubmitRunOperator(
        task_id="nightly_etl",
        tasks=[{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/nightly_etl"}}],
        deferrable=True,
        wait_for_termination=True,  # required: deferrable=True alone does not wait
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
