"""Written here (issue 18): the seed's own base order (BaseOperator first, TypeError on Airflow
3.3.2) and no external_id_key."""

from __future__ import annotations

from airflow.sdk import BaseOperator, ResumableJobMixin


class SparkSubmitJob(BaseOperator, ResumableJobMixin):
    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.client.submit(self.app)["submissionId"]
