"""Hold-out: a Glue job that waits (the default), then a GlueJobSensor re-checking it - redundant
but not a split. Clean."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
from airflow.sdk import DAG
from pendulum import datetime

with DAG("glue_wait", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    run = GlueJobOperator(task_id="run", job_name="daily")
    check = GlueJobSensor(task_id="check", job_name="daily", run_id=run.output)
    run >> check
