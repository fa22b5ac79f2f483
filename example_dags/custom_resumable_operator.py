"""Writing your own crash-safe operator with ``ResumableJobMixin`` (seed section 5).

The mixin comes FIRST in the bases: on Airflow 3.3.2, ``class X(BaseOperator, ResumableJobMixin)``
(the order in the AIP-103 guide) raises ``TypeError`` when the operator is created.
``external_id_key`` is set once and never renamed while task instances are in flight, and
``execute()`` only calls ``execute_resumable()``.

This plain mixin checkpoints the id *after* submit; the operators in ``durable_jobs.providers``
also close the submit→persist window with an idempotency key.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pendulum
from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.sdk import DAG, BaseOperator, ResumableJobMixin

ACTIVE = ("QUEUED", "PENDING", "RUNNING", "TERMINATING", "BLOCKED", "WAITING_FOR_RETRY")


class NotebookRunOperator(ResumableJobMixin, BaseOperator):
    """Run one Databricks notebook; a retry reconnects to the run instead of starting another."""

    external_id_key = "notebook_run_id"  # key in task_state_store; set once, never rename
    template_fields = ("notebook_path",)

    def __init__(self, *, notebook_path: str, poll_seconds: float = 30, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.notebook_path = notebook_path
        self.poll_seconds = poll_seconds

    @property
    def hook(self) -> DatabricksHook:
        return DatabricksHook()

    def execute(self, context):
        return self.execute_resumable(context)  # never custom logic here

    def submit_job(self, context) -> int:
        # Databricks returns a trackable run id: never None, or crash safety is silently off.
        return self.hook.submit_run(
            {
                "run_name": self.task_id,
                "tasks": [{"task_key": "nb", "notebook_task": {"notebook_path": self.notebook_path}}],
            }
        )

    def get_job_status(self, external_id, context) -> str:
        return self.hook.get_run_state(external_id).life_cycle_state + ":" + (
            self.hook.get_run_state(external_id).result_state or ""
        )

    def is_job_active(self, status: str) -> bool:
        return status.split(":", 1)[0] in ACTIVE

    def is_job_succeeded(self, status: str) -> bool:
        return status == "TERMINATED:SUCCESS"

    def poll_until_complete(self, external_id, context) -> None:
        while True:
            state = self.hook.get_run_state(external_id)
            if state.is_terminal:
                if not state.is_successful:
                    raise RuntimeError(f"run {external_id} ended {state}")
                return
            time.sleep(self.poll_seconds)

    def get_job_result(self, external_id, context) -> int:
        return external_id


with DAG(
    dag_id="example_custom_resumable_operator",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "resumable-job-mixin"],
) as dag:
    NotebookRunOperator(task_id="run_notebook", notebook_path="/Shared/report", retries=2,
                        retry_delay=timedelta(minutes=1))
