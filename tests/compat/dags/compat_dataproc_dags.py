"""Dataproc DAGs for the compatibility subset, run against the Dataproc gRPC emulator (the hooks' client
factories routed in-process, an anonymous connection); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.google.cloud.operators.dataproc import (
    DataprocCreateBatchOperator,
    DataprocSubmitJobOperator,
)
from durable_jobs.testing.emulators.dataproc import PROJECT, REGION

JOB = {"placement": {"cluster_name": "compat"}, "pyspark_job": {"main_python_file_uri": "gs://compat/job.py"}}


class SubmitJob(_RecordDeferrals, DataprocSubmitJobOperator):
    pass


with _dag("compat_dataproc_sync") as sync:
    SubmitJob(task_id="run", job=JOB, region=REGION, project_id=PROJECT, polling_interval_seconds=0.2, retries=1,
              retry_delay=timedelta(0))

with _dag("compat_dataproc_deferrable") as deferrable:
    SubmitJob(task_id="run", job=JOB, region=REGION, project_id=PROJECT, polling_interval_seconds=0.2, retries=1,
              retry_delay=timedelta(0), deferrable=True)


class CreateBatch(_RecordDeferrals, DataprocCreateBatchOperator):
    pass


BATCH = {"pyspark_batch": {"main_python_file_uri": "gs://compat/job.py"}}

with _dag("compat_dataproc_batch_sync") as batch_sync:
    CreateBatch(task_id="run", batch=BATCH, region=REGION, project_id=PROJECT, polling_interval_seconds=0.2,
                retries=1, retry_delay=timedelta(0))

with _dag("compat_dataproc_batch_deferrable") as batch_deferrable:
    CreateBatch(task_id="run", batch=BATCH, region=REGION, project_id=PROJECT, polling_interval_seconds=0.2,
                retries=1, retry_delay=timedelta(0), deferrable=True)
