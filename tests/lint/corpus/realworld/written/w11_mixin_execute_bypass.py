"""Written here (issue 18): a ResumableJobMixin subclass of an official operator whose execute()
runs its own submit-and-poll loop and never reaches execute_resumable()."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.athena import AthenaOperator
from airflow.sdk import ResumableJobMixin


class ResumableAthenaOperator(ResumableJobMixin, AthenaOperator):
    external_id_key = "athena_query_execution_id"

    def execute(self, context):
        query_id = self.submit_job(context)
        self.poll_until_complete(query_id, context)
        return query_id

    def submit_job(self, context):
        return self.hook.run_query(self.query, self.query_execution_context,
                                   self.result_configuration)
