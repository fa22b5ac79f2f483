"""The Cloud Run demo's contrast run: the *official* ``CloudRunExecuteJobOperator`` with the example's job and
``overrides`` (``example_dags/google_cloud_run.py``). Linked into the demo's DAGs folder only."""

from __future__ import annotations

import pendulum
from airflow.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator
from airflow.sdk import DAG

from durable_jobs.example_dags.google_cloud_run import dag as example

task = example.task_dict["nightly_export"]

with DAG("example_google_cloud_run_official", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
         catchup=False) as official_dag:
    CloudRunExecuteJobOperator(task_id="nightly_export", project_id=task.project_id, region=task.region,
                               job_name=task.job_name, overrides=task.overrides, deferrable=True,
                               retries=task.retries, polling_period_seconds=30)
