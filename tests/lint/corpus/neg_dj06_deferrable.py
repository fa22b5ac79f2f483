"""Near miss for DJ061: deferrable with the wait on; the wait off without deferral."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
from airflow.sdk import DAG
from pendulum import datetime

with DAG("deferred_ok", start_date=datetime(2025, 1, 1), schedule="@daily"):
    run_now = DatabricksRunNowOperator(task_id="run_now", job_id=42, deferrable=True,
                                       wait_for_termination=True)
    glue = GlueJobOperator(task_id="glue", job_name="nightly", deferrable=False,
                           wait_for_completion=False)
    run_now >> glue
