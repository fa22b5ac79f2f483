"""Written here (issue 18): our durable Glue operator with durable=False in a production DAG."""

from __future__ import annotations

from airflow.sdk import DAG
from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator
from pendulum import datetime

with DAG("glue_not_durable", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False,
         default_args={"retries": 2}):
    GlueJobOperator(task_id="crunch", job_name="crunch", durable=False)
