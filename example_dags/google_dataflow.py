"""Dataflow templates, each job launched once: the official ``DataflowTemplatedJobStartOperator``, one import
changed (``DataflowStartFlexTemplateOperator`` works the same way with its ``body``).

Upstream appends a new 8-character uuid to ``job_name`` on every try, so a retry after a lost launch reply or a
killed worker launches a second job. Ours appends the epoch's key instead (``word-count-<32 hex>``): a retry finds
the job under that name (``jobs.list`` by name) and re-attaches; a job that genuinely fails is retried under the
next epoch's name. A user's kill (mark failed, clear) cancels the job; an eviction leaves it for the retry.

Needs the ``google-dataflow`` extra (``pip install "airflow-durable-jobs[google-dataflow]"``): google's Dataflow
hook imports the Apache Beam provider. Shown on the synchronous path, as ``durable-jobs demo`` plays it next to
the official operator (its faults are armed on the REST calls both paths make in the worker); ``deferrable=True``
is as durable. Runs against the loopback Dataflow emulator of ``durable-jobs demo``; point
``google_cloud_default`` at your project to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.dataflow import DataflowTemplatedJobStartOperator

with DAG(
    "example_google_dataflow",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "google", "dataflow"],
) as dag:
    DataflowTemplatedJobStartOperator(
        task_id="word_count",
        project_id="emulator-project",
        location="us-central1",
        template="gs://dataflow-templates/latest/Word_Count",
        job_name="word-count",
        parameters={"inputFile": "gs://input/{{ ds }}.txt", "output": "gs://output/{{ ds }}/counts"},
        options={"tempLocation": "gs://scratch/tmp"},
        poll_sleep=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
