"""Cloud Batch, each job created exactly once: the official ``CloudBatchSubmitJobOperator``, one import changed.

The job id is made from the epoch's key: ``<job_name>-<key>`` (here ``nightly-render-<key>``). A job created
before a lost reply, or before a worker was killed, is found again by that id (``GetJob``) instead of the retry
failing with ``ALREADY_EXISTS`` as the official operator's does. A job that genuinely fails is retried as a new
job, under a new key. A user's kill (mark failed, clear) cancels the job; an eviction leaves it for the retry.

Runs against the loopback Cloud Batch emulator of ``durable-jobs demo``; point ``google_cloud_default`` at your
project to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator

with DAG(
    "example_google_cloud_batch",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "google", "cloud-batch"],
) as dag:
    CloudBatchSubmitJobOperator(
        task_id="nightly_render",
        project_id="emulator-project",
        region="europe-west1",
        job_name="nightly-render",
        job={
            "task_groups": [{
                "task_count": 4,
                "task_spec": {"runnables": [{"container": {
                    "image_uri": "gcr.io/google-containers/busybox",
                    "entrypoint": "/bin/sh",
                    "commands": ["-c", "echo rendering {{ ds }} part $BATCH_TASK_INDEX"],
                }}]},
            }],
            "logs_policy": {"destination": "CLOUD_LOGGING"},
        },
        deferrable=True,
        polling_period_seconds=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
