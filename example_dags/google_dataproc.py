"""Dataproc, each job submitted exactly once: the official ``DataprocSubmitJobOperator``, one import changed.

The key is the ``SubmitJobRequest.request_id`` ("If the server receives two SubmitJobRequest requests with the
same id, then the second request will be ignored and the first Job created and stored in the backend is
returned") and is part of the job id: here ``daily-sales-<ds_nodash>-<key>``. A resend after a lost reply, or
after a worker was killed before the job id was saved, carries the same request id and gets the first job
back instead of running the Spark job twice. A job that genuinely fails is retried as a new job, under a new key.

Runs against the loopback Dataproc emulator of ``durable-jobs demo``; point ``google_cloud_default`` at your
project to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator

with DAG(
    "example_google_dataproc",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "google", "dataproc"],
) as dag:
    DataprocSubmitJobOperator(
        task_id="aggregate_sales",
        project_id="emulator-project",
        region="europe-west1",
        job={
            "reference": {"job_id": "daily-sales-{{ ds_nodash }}"},
            "placement": {"cluster_name": "etl"},
            "pyspark_job": {"main_python_file_uri": "gs://etl/jobs/aggregate_sales.py", "args": ["{{ ds }}"]},
        },
        deferrable=True,
        polling_interval_seconds=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
