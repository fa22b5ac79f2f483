"""DAGs for the Cloud Run integration tests (run through Airflow against the gRPC emulator).

The tests define the Cloud Run job ``daily`` on the emulator first. A container env ``EMULATOR_OUTCOME=failed``
ends an execution with a failed task; ``EMULATOR_SECONDS`` sets how long it runs: both go through the real
request's ``overrides``.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.google.cloud.operators.cloud_run import (
    CloudRunExecuteJobOperator as OfficialCloudRunExecuteJobOperator,
)
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator
from durable_jobs.testing.emulators.cloud_run import PROJECT, REGION

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
OVERRIDES = {"container_overrides": [{"args": ["--day", "{{ ds }}"], "env": [{"name": "DAY", "value": "{{ ds }}"}]}]}
FAILING = {"container_overrides": [{"env": [{"name": "EMULATOR_OUTCOME", "value": "failed"}]}]}
SLOW = {"container_overrides": [{"env": [{"name": "EMULATOR_SECONDS", "value": "30"}]}]}


def execute(dag_id: str, *, operator=CloudRunExecuteJobOperator, overrides=None, **kwargs) -> DAG:
    args = dict(overrides=overrides or OVERRIDES, region=REGION, project_id=PROJECT, job_name="daily",
                polling_period_seconds=0.2)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


cr_sync = execute("cr_sync")
cr_deferrable = execute("cr_deferrable", deferrable=True)
cr_fails = execute("cr_fails", overrides=FAILING, retries=1)
cr_fails_deferrable = execute("cr_fails_deferrable", overrides=FAILING, retries=1, deferrable=True)
cr_timeout = execute("cr_timeout", overrides=SLOW, timeout_seconds=1, retries=0)
cr_official = execute("cr_official", operator=OfficialCloudRunExecuteJobOperator)
cr_official_deferrable = execute("cr_official_deferrable", operator=OfficialCloudRunExecuteJobOperator,
                                 deferrable=True)
