"""Written here (issue 18): near miss for DJ071 - execute() logs and hands over to a helper that
calls execute_resumable(). Clean."""

from __future__ import annotations

from airflow.sdk import BaseOperator, ResumableJobMixin


class ExportOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "export_job_id"

    def execute(self, context):
        self.log.info("exporting %s", self.task_id)
        return self._run(context)

    def _run(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.client.start_export()["id"]

    def get_job_status(self, external_id, context):
        return self.client.status(external_id)
