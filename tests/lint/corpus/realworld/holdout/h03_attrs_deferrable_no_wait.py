"""Hold-out: deferrable switched on and waiting switched off, both as attributes after the
constructor; nothing watches the job."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.sdk import DAG
from pendulum import datetime

with DAG("glue_attrs", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    refresh = GlueJobOperator(task_id="refresh", job_name="refresh_marts")
    refresh.deferrable = True
    refresh.wait_for_completion = False
