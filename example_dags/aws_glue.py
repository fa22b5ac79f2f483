"""AWS Glue, each job run started exactly once: the official ``GlueJobOperator``, one import changed.

Glue's StartJobRun has no idempotency token: the run carries its key as the job argument
``--durable_jobs_key`` (Glue scripts that read their options with ``getResolvedOptions`` ignore it),
and a retry finds it with GetJobRuns. A lost StartJobRun reply is looked up before any resend.

Runs against the loopback AWS of ``durable-jobs demo``; point ``aws_default`` at your account to run
it for real (``iam_role_arn`` and ``script_location`` must then exist).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator

with DAG(
    "example_aws_glue",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    GlueJobOperator(
        task_id="nightly_glue",
        job_name="durable-example-etl",
        script_location="s3://durable-bucket/scripts/etl.py",
        s3_bucket="durable-bucket",
        iam_role_arn="arn:aws:iam::123456789012:role/durable-jobs-role",
        script_args={"--day": "{{ ds }}"},
        deferrable=True,
        waiter_delay=10,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
