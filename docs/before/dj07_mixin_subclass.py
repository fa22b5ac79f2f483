"""Before (DJ071, DJ072, DJ074): a ResumableJobMixin operator written from the guide's
example with the guide's base order - which raises TypeError on Airflow 3.3.2 - a custom
execute() that bypasses execute_resumable(), and no external_id_key of its own.
DJ073 (a renamed key) needs ``--baseline``; see docs/lint.md.
"""

from __future__ import annotations

from airflow.sdk import BaseOperator, ResumableJobMixin


class MyBatchOperator(BaseOperator, ResumableJobMixin):

    def execute(self, context):
        job_id = self.submit_job(context)          # bypasses the checkpoint
        self.poll_until_complete(job_id, context)
        return self.get_job_result(job_id, context)

    def submit_job(self, context):
        return self.hook.submit_batch(self.job_definition)

    def get_job_status(self, external_id, context):
        return self.hook.get_status(external_id)

    def is_job_active(self, status):
        return status in ("RUNNING", "PENDING", "QUEUED")

    def is_job_succeeded(self, status):
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context):
        self.hook.wait(external_id)

    def get_job_result(self, external_id, context):
        return None
