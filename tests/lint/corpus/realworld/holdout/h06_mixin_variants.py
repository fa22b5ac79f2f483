"""Hold-out: three ResumableJobMixin operators - one reaching execute_resumable through a helper
(fine), one handing over to the official operator's execute (cannot tell: fine), one calling
submit_job/get_job_result itself (bypass)."""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import BaseOperator, ResumableJobMixin


class ViaHelper(ResumableJobMixin, BaseOperator):
    external_id_key = "via_helper_job_id"

    def execute(self, context):
        return self.run_job(context)

    def run_job(self, context):
        self.log.info("starting")
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.client.submit()["id"]


class HandsOver(ResumableJobMixin, DatabricksSubmitRunOperator):
    external_id_key = "hands_over_run_id"

    def execute(self, context):
        self.log.info("delegating")
        return super().execute(context)


class DoesItself(ResumableJobMixin, BaseOperator):
    external_id_key = "does_itself_job_id"

    def execute(self, context):
        try:
            job_id = self.submit_job(context)
        except TimeoutError:
            raise
        return self.get_job_result(job_id, context)

    def submit_job(self, context):
        return self.client.submit()["id"]
