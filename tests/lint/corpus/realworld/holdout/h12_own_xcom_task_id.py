"""Hold-out: a custom operator pulling its own job id with task_ids=self.task_id before
submitting."""

from __future__ import annotations

from airflow.providers.amazon.aws.hooks.batch_client import BatchClientHook
from airflow.sdk import BaseOperator


class OnceBatchOperator(BaseOperator):
    def execute(self, context):
        ti = context["ti"]
        hook = BatchClientHook()
        job_id = ti.xcom_pull(task_ids=self.task_id, key="batch_job_id")
        if job_id is None:
            job_id = hook.client.submit_job(jobName="x", jobQueue="q", jobDefinition="d")["jobId"]
            ti.xcom_push(key="batch_job_id", value=job_id)
        hook.wait_for_job(job_id)
