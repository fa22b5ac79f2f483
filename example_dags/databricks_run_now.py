"""Trigger an existing Databricks job exactly once, with ``repair_run`` kept inside the same run.

``cancel_previous_runs`` cancels older runs only before a *new* submission: a retry that
reconnects to its own running run never cancels it.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators.databricks import DatabricksRunNowOperator

with DAG(
    dag_id="example_databricks_run_now",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "databricks"],
) as dag:
    DatabricksRunNowOperator(
        task_id="refresh_marts",
        job_name="refresh_marts",
        job_parameters={"run_date": "{{ ds }}"},
        cancel_previous_runs=True,
        repair_run=True,
        deferrable=True,
        wait_for_termination=True,
        retries=2,
        retry_delay=timedelta(minutes=2),
    )
