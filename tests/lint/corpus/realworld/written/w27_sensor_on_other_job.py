"""Written here (issue 18): near miss for DJ051 - a fire-and-forget Glue trigger (a separate
pipeline owns its outcome) next to a sensor for a *different* job. Clean."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
from airflow.sdk import DAG
from pendulum import datetime

with DAG("glue_kick", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    wait_upstream = GlueJobSensor(task_id="wait_upstream", job_name="ingest", run_id="{{ params.run }}")
    kick = GlueJobOperator(task_id="kick", job_name="refresh_cache", wait_for_completion=False)
    wait_upstream >> kick
