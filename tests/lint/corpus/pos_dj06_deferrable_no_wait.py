"""deferrable=True with the wait switched off, on two vendors."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
from airflow.sdk import DAG
from pendulum import datetime

with DAG("deferred_nothing", start_date=datetime(2025, 1, 1), schedule="@daily"):
    run_now = DatabricksRunNowOperator(
        task_id="run_now",
        job_id=42,
        deferrable=True,
        wait_for_termination=False,  # expect: DJ061
    )
    glue = GlueJobOperator(task_id="glue", job_name="nightly", deferrable=True, wait_for_completion=False)  # expect: DJ061
    run_now >> glue
