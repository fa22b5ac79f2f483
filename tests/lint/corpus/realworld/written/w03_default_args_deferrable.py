"""Written here (issue 18): deferrable switched on for every task through default_args, and one
EMR Serverless job told not to wait, so it neither defers nor waits."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator
from airflow.sdk import DAG
from pendulum import datetime

DEFAULTS = {"owner": "analytics", "retries": 2, "deferrable": True}

with DAG("emr_serverless_daily", start_date=datetime(2025, 1, 1), schedule="@daily",
         default_args=DEFAULTS, catchup=False):
    aggregate = EmrServerlessStartJobOperator(
        task_id="aggregate",
        application_id="00fabc123",
        execution_role_arn="arn:aws:iam::123456789012:role/emr",
        job_driver={"sparkSubmit": {"entryPoint": "s3://code/aggregate.py"}},
        wait_for_completion=False,
    )
