"""Written here (issue 18): deferrable=True and wait_for_termination=False on one Databricks
task with nothing watching the run."""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
from airflow.sdk import DAG
from pendulum import datetime

with DAG("databricks_deferred", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    DatabricksRunNowOperator(task_id="refresh", job_id=1234, deferrable=True,
                             wait_for_termination=False)
