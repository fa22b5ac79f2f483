"""Cloud Batch DAGs for the compatibility subset, run against the Cloud Batch gRPC emulator (both official hooks'
``get_conn`` routed in-process, an anonymous connection); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator
from durable_jobs.testing.emulators.cloud_batch import PROJECT, REGION

JOB = {"task_groups": [{"task_spec": {"runnables": [{"script": {"text": "echo compat"}}]}}]}


class SubmitJob(_RecordDeferrals, CloudBatchSubmitJobOperator):
    pass


with _dag("compat_cloud_batch_sync") as sync:
    SubmitJob(task_id="run", job=JOB, region=REGION, project_id=PROJECT, job_name="compat",
              polling_period_seconds=0.2, retries=1, retry_delay=timedelta(0))

with _dag("compat_cloud_batch_deferrable") as deferrable:
    SubmitJob(task_id="run", job=JOB, region=REGION, project_id=PROJECT, job_name="compat",
              polling_period_seconds=0.2, retries=1, retry_delay=timedelta(0), deferrable=True)
