"""Dataproc Serverless, each batch created exactly once: the official ``DataprocCreateBatchOperator``, one import
changed.

The batch id is made from the epoch's key: ``<batch_id_prefix>-<key>`` (here ``sales-report-<key>``), and the
``request_id`` from the key's nonce. A batch created before a lost reply, or before a worker was killed, is found
again by that id instead of a second batch being started. A batch that genuinely fails is retried as a new batch,
under a new key; ``num_retries_if_resource_is_not_ready`` re-creates it in place, as upstream.

Runs against the loopback Dataproc emulator of ``durable-jobs demo``; point ``google_cloud_default`` at your
project to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.dataproc import DataprocCreateBatchOperator

with DAG(
    "example_google_dataproc_batch",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "google", "dataproc"],
) as dag:
    DataprocCreateBatchOperator(
        task_id="sales_report",
        project_id="emulator-project",
        region="europe-west1",
        batch={"pyspark_batch": {"main_python_file_uri": "gs://etl/jobs/sales_report.py", "args": ["{{ ds }}"]}},
        batch_id_prefix="sales-report",
        num_retries_if_resource_is_not_ready=2,
        deferrable=True,
        polling_interval_seconds=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
