"""DAGs for the Cloud Batch integration tests (run through Airflow against the gRPC emulator).

A job labelled ``emulator-outcome: failed`` ends FAILED; ``emulator-seconds`` sets how long it runs.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.google.cloud.operators.cloud_batch import (
    CloudBatchSubmitJobOperator as OfficialCloudBatchSubmitJobOperator,
)
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator
from durable_jobs.testing.emulators.cloud_batch import PROJECT, REGION

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
JOB = {"task_groups": [{"task_spec": {"runnables": [{"script": {"text": "echo {{ ds }}"}}]}}]}
FAILING = {**JOB, "labels": {"emulator-outcome": "failed"}}


def submit(dag_id: str, *, operator=CloudBatchSubmitJobOperator, job=None, **kwargs) -> DAG:
    args = dict(job=job or JOB, region=REGION, project_id=PROJECT, job_name="daily-{{ ds_nodash }}",
                polling_period_seconds=0.2)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


cb_sync = submit("cb_sync")
cb_deferrable = submit("cb_deferrable", deferrable=True)
cb_fails = submit("cb_fails", job=FAILING, retries=1)
cb_fails_deferrable = submit("cb_fails_deferrable", job=FAILING, retries=1, deferrable=True)
cb_timeout = submit("cb_timeout", job={**JOB, "labels": {"emulator-seconds": "30"}}, timeout_seconds=1, retries=0)
cb_official = submit("cb_official", operator=OfficialCloudBatchSubmitJobOperator)
