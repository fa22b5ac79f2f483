"""DAGs for the Dataproc integration tests (run through Airflow against the gRPC emulator).

A job labelled ``emulator-outcome: error`` ends in ERROR; ``emulator-seconds`` sets how long it runs.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator as OfficialSubmitJob
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator
from durable_jobs.testing.emulators.dataproc import PROJECT, REGION

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
JOB = {"placement": {"cluster_name": "etl"},
       "pyspark_job": {"main_python_file_uri": "gs://bucket/daily.py", "args": ["{{ ds }}"]}}


def submit_job(dag_id: str, *, operator=DataprocSubmitJobOperator, job=None, **kwargs) -> DAG:
    args = dict(job=job or JOB, region=REGION, project_id=PROJECT, polling_interval_seconds=0.2)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


FAILING = {**JOB, "labels": {"emulator-outcome": "error"}}
dp_sync = submit_job("dp_sync")
dp_deferrable = submit_job("dp_deferrable", deferrable=True)
dp_async = submit_job("dp_async", asynchronous=True)
dp_fails = submit_job("dp_fails", job=FAILING, retries=1)
dp_fails_deferrable = submit_job("dp_fails_deferrable", job=FAILING, retries=1, deferrable=True)
dp_user_ids = submit_job("dp_user_ids", job={**JOB, "reference": {"job_id": "daily-{{ ds_nodash }}"}},
                         request_id="daily-{{ ds_nodash }}")
dp_official = submit_job("dp_official", operator=OfficialSubmitJob)
dp_long = submit_job("dp_long", job={**JOB, "labels": {"emulator-seconds": "30"}})
dp_long_deferrable = submit_job("dp_long_deferrable", job={**JOB, "labels": {"emulator-seconds": "30"}},
                                deferrable=True)


# ------------------------------------------------------------------ Serverless batches
from durable_jobs.providers.google.cloud.operators.dataproc import DataprocCreateBatchOperator  # noqa: E402

BATCH = {"pyspark_batch": {"main_python_file_uri": "gs://bucket/daily.py", "args": ["{{ ds }}"]}}


def create_batch(dag_id: str, *, batch=None, **kwargs) -> DAG:
    args = dict(batch=batch or BATCH, region=REGION, project_id=PROJECT, polling_interval_seconds=0.2)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        DataprocCreateBatchOperator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


b_sync = create_batch("b_sync")
b_deferrable = create_batch("b_deferrable", deferrable=True)
b_user_id = create_batch("b_user_id", batch_id="daily-{{ ds_nodash }}", request_id="req-{{ ds_nodash }}")
b_fails = create_batch("b_fails", batch={**BATCH, "labels": {"emulator-outcome": "failed"}}, retries=1)
b_fails_deferrable = create_batch("b_fails_deferrable", batch={**BATCH, "labels": {"emulator-outcome": "failed"}},
                                  retries=1, deferrable=True)
b_not_ready = create_batch("b_not_ready", batch={**BATCH, "labels": {"emulator-outcome": "not-ready-once"}},
                           num_retries_if_resource_is_not_ready=1)
