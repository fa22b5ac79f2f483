"""Cloud Run DAGs for the compatibility subset, run against the Cloud Run gRPC emulator (both official hooks'
``get_conn`` routed in-process, an anonymous connection); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3.
The test defines the Cloud Run job ``compat`` on the emulator."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator
from durable_jobs.testing.emulators.cloud_run import PROJECT, REGION

OVERRIDES = {"container_overrides": [{"args": ["compat"]}]}


class ExecuteJob(_RecordDeferrals, CloudRunExecuteJobOperator):
    pass


with _dag("compat_cloud_run_sync") as sync:
    ExecuteJob(task_id="run", job_name="compat", overrides=OVERRIDES, region=REGION, project_id=PROJECT,
               polling_period_seconds=0.2, retries=1, retry_delay=timedelta(0))

with _dag("compat_cloud_run_deferrable") as deferrable:
    ExecuteJob(task_id="run", job_name="compat", overrides=OVERRIDES, region=REGION, project_id=PROJECT,
               polling_period_seconds=0.2, retries=1, retry_delay=timedelta(0), deferrable=True)
