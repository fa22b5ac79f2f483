"""AWS Batch, submitted exactly once: the official ``BatchOperator``'s arguments, one import changed.

Batch has no idempotency token, so each job carries its key in its name (``<job_name>-<key>``) and
in the tag ``durable-jobs:key`` (merged with ``tags``; tagging needs ``batch:TagResource``). A
worker crash, an Airflow retry or a lost SubmitJob reply reconnects to the job instead of starting a
second one; a *clear* starts a fresh job. Deferrable: the job is checkpointed before the task defers.

Runs against the loopback AWS of ``durable-jobs demo`` (queue ``durable-queue``, definition
``durable-job-def``); point ``aws_default`` at your account to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.batch import BatchOperator

with DAG(
    "example_aws_batch",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    BatchOperator(
        task_id="nightly_batch",
        job_name="nightly-etl",
        job_queue="durable-queue",
        job_definition="durable-job-def",
        parameters={"day": "{{ ds }}"},
        tags={"team": "data"},
        deferrable=True,
        poll_interval=10,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
