"""Near misses for DJ091/DJ092: retries set, a non-durable operator with retries=0,
durable=True spelled out."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.batch import BatchOperator
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG
from pendulum import datetime

with DAG("durable_ok", start_date=datetime(2025, 1, 1), schedule="@daily",
         default_args={"retries": 2}):
    run = DatabricksSubmitRunOperator(
        task_id="run",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/a"}}],
        durable=True,
    )
    batch = BatchOperator(task_id="batch", job_name="n", job_queue="q", job_definition="d",
                          retries=0)
    run >> batch
