"""The Cloud Batch demo's contrast run: the *official* ``CloudBatchSubmitJobOperator`` with the example's job and
``job_name`` (``example_dags/google_cloud_batch.py``). Linked into the demo's DAGs folder only."""

from __future__ import annotations

import pendulum
from airflow.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator
from airflow.sdk import DAG

from durable_jobs.example_dags.google_cloud_batch import dag as example

task = example.task_dict["nightly_render"]

with DAG("example_google_cloud_batch_official", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
         catchup=False) as official_dag:
    CloudBatchSubmitJobOperator(task_id="nightly_render", project_id=task.project_id, region=task.region,
                                job_name=task.job_name, job=task.job, deferrable=True, retries=task.retries,
                                polling_period_seconds=30)
