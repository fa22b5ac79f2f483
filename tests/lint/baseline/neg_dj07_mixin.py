"""The deployed version of tests/lint/corpus/neg_dj07_mixin.py: same keys, so no DJ073."""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import BaseOperator, ResumableJobMixin


class GoodOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "good_job_id"

    def execute(self, context):
        return self.execute_resumable(context)


class TaggedSubmitRun(ResumableJobMixin, DatabricksSubmitRunOperator):
    pass


class Inherits(GoodOperator):
    pass
