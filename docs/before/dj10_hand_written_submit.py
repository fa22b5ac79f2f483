"""Before (DJ101, DJ102): a @task that submits a Glue job through the hook with retries and
no checkpoint, and a mixin whose submit_job() can return None (crash safety silently off).
"""

from __future__ import annotations

from airflow.providers.amazon.aws.hooks.glue import GlueJobHook
from airflow.sdk import BaseOperator, ResumableJobMixin, dag, task
from pendulum import datetime


class MyBatchOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "batch_job_id"

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        response = self.hook.submit(self.job_definition)
        return response.get("jobId")                # None when the key is missing

    def get_job_status(self, external_id, context):
        return self.hook.get_status(external_id)

    def is_job_active(self, status):
        return status in ("RUNNING", "PENDING")

    def is_job_succeeded(self, status):
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context):
        self.hook.wait(external_id)

    def get_job_result(self, external_id, context):
        return None


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def nightly_glue():

    @task(retries=3)
    def run_glue_job():
        hook = GlueJobHook(job_name="nightly")
        run_id = hook.initialize_job()["JobRunId"]   # a retry submits a second run
        hook.job_completion("nightly", run_id)

    run_glue_job()


nightly_glue()
