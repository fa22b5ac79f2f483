"""Written here (issue 18): submit_job() that returns the dict's .get() - None when the API
answers without an id."""

from __future__ import annotations

from airflow.sdk import BaseOperator, ResumableJobMixin


class LivyBatch(ResumableJobMixin, BaseOperator):
    external_id_key = "livy_batch_id"

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        reply = self.hook.post_batch(file=self.file)
        return reply.get("id")
