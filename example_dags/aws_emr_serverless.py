"""EMR Serverless, each job run started exactly once: the official operator, one import changed.

The key goes into ``clientToken`` (so a resend after a lost reply returns the same run) and into the
tag ``durable-jobs:key`` (so a retry after a crash finds the run; tagging needs
``emr-serverless:TagResource``). ``cancel_on_kill=True`` cancels the run when a *user* stops the task,
not when the infrastructure restarts a worker or a triggerer.

The application id comes from the Airflow Variable ``emr_serverless_application_id``
(``durable-jobs demo`` sets it for its loopback AWS).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator

with DAG(
    "example_aws_emr_serverless",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    EmrServerlessStartJobOperator(
        task_id="nightly_spark",
        application_id="{{ var.value.emr_serverless_application_id }}",
        execution_role_arn="arn:aws:iam::123456789012:role/durable-jobs-role",
        job_driver={"sparkSubmit": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}},
        name="nightly-spark",
        cancel_on_kill=True,
        deferrable=True,
        waiter_delay=10,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
