"""Before (DJ091, DJ092): a durable operator that can never reconnect (retries=0) and one with
crash safety switched off outside tests.
"""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG
from pendulum import datetime

with DAG("durable_config", start_date=datetime(2025, 1, 1), schedule="@daily"):
    no_retries = DatabricksSubmitRunOperator(
        task_id="no_retries",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/a"}}],
        retries=0,
    )
    not_durable = DatabricksSubmitRunOperator(
        task_id="not_durable",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/b"}}],
        retries=3,
        durable=False,
    )
