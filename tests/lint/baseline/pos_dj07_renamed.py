"""The deployed version of tests/lint/corpus/pos_dj07_renamed.py (used as --baseline)."""

from __future__ import annotations

from airflow.sdk import BaseOperator, ResumableJobMixin


class BatchOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "batch_job_id"

    def execute(self, context):
        return self.execute_resumable(context)


class DefaultedOperator(ResumableJobMixin, BaseOperator):
    def execute(self, context):
        return self.execute_resumable(context)


class UnchangedOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "unchanged_job_id"

    def execute(self, context):
        return self.execute_resumable(context)
