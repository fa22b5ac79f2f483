"""Cloud Run jobs, each execution started once: the official ``CloudRunExecuteJobOperator``, one import changed.

Cloud Run's ``RunJob`` takes no request id, so the official operator starts a second execution whenever a retry
follows a lost reply or a killed worker. Ours carries the epoch's key into the execution as the container env
``DURABLE_JOBS_KEY`` (merged with the ``overrides`` below) and, when the fate of a ``RunJob`` is unknown, lists the
job's executions for it before running the job again. An execution that genuinely fails is retried as a new one,
under a new key. A user's kill (mark failed, clear) cancels the execution; an eviction leaves it for the retry.

Runs against the loopback Cloud Run emulator of ``durable-jobs demo`` (which defines the job ``nightly-export``);
point ``google_cloud_default`` at your project, with a Cloud Run job of that name, to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator

with DAG(
    "example_google_cloud_run",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "google", "cloud-run"],
) as dag:
    CloudRunExecuteJobOperator(
        task_id="nightly_export",
        project_id="emulator-project",
        region="europe-west1",
        job_name="nightly-export",
        overrides={
            "container_overrides": [{"args": ["--date", "{{ ds }}"], "env": [{"name": "TARGET", "value": "gs://exports"}]}],
            "task_count": 2,
        },
        deferrable=True,
        polling_period_seconds=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
