"""Durable operators that cannot reconnect (retries=0) or have durability switched off."""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
from airflow.sdk import DAG
from pendulum import datetime

from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

NO_RETRIES = {"retries": 0}

with DAG("durable_misconfigured", start_date=datetime(2025, 1, 1), schedule="@daily",
         default_args=NO_RETRIES):
    inherited = DatabricksSubmitRunOperator(  # expect: DJ091
        task_id="inherited",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/a"}}],
    )
    explicit = DatabricksRunNowOperator(task_id="explicit", job_id=7, retries=0)  # expect: DJ091
    switched_off = DatabricksSubmitRunOperator(
        task_id="switched_off",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/b"}}],
        durable=False,  # expect: DJ092
    )
    inherited >> explicit >> switched_off

with DAG("durable_off_everywhere", start_date=datetime(2025, 1, 1), schedule="@daily",
         default_args={"durable": False, "retries": 0}):  # expect: DJ092
    plain = DatabricksRunNowOperator(task_id="plain", job_id=8)
