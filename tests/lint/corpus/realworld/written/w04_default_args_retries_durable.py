"""Written here (issue 18): our durable Databricks operator inherits retries=0 from a shared
default_args dict spread into the DAG's own, so it can never reconnect."""

from __future__ import annotations

from airflow.sdk import DAG
from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from pendulum import datetime

COMPANY_DEFAULTS = {"owner": "platform", "retries": 0, "email_on_failure": True}

dag = DAG(
    "databricks_features",
    start_date=datetime(2025, 1, 1),
    schedule="@daily",
    default_args={**COMPANY_DEFAULTS, "depends_on_past": False},
)

build_features = DatabricksSubmitRunOperator(
    task_id="build_features",
    tasks=[{"task_key": "features", "notebook_task": {"notebook_path": "/Repos/ml/features"}}],
    dag=dag,
)
