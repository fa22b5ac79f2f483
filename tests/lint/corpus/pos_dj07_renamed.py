"""external_id_key renamed since the deployed version (tests/lint/baseline/pos_dj07_renamed.py)."""

from __future__ import annotations

from airflow.sdk import BaseOperator, ResumableJobMixin


class BatchOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "batch_id"  # expect: DJ073

    def execute(self, context):
        return self.execute_resumable(context)


class DefaultedOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "defaulted_job_id"  # expect: DJ073

    def execute(self, context):
        return self.execute_resumable(context)


class UnchangedOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "unchanged_job_id"

    def execute(self, context):
        return self.execute_resumable(context)


class NewOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "new_job_id"

    def execute(self, context):
        return self.execute_resumable(context)
