"""Written here (issue 18): a custom operator that looks for its own job id in XCom to skip the
submit on a retry (XComs are cleared before every try)."""

from __future__ import annotations

from airflow.providers.amazon.aws.hooks.glue import GlueJobHook
from airflow.sdk import BaseOperator


class GlueOnceOperator(BaseOperator):
    def __init__(self, *, job_name: str, **kwargs):
        super().__init__(**kwargs)
        self.job_name = job_name

    def execute(self, context):
        ti = context["ti"]
        hook = GlueJobHook(job_name=self.job_name)
        job_run_id = ti.xcom_pull(key="glue_job_run_id")
        if not job_run_id:
            job_run_id = hook.initialize_job()["JobRunId"]
            ti.xcom_push(key="glue_job_run_id", value=job_run_id)
        return hook.job_completion(self.job_name, job_run_id)
