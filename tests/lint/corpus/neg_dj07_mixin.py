"""Near misses for DJ071-DJ074 and DJ102: mixin first, a key, execute_resumable, an id or an
exception from submit_job, and a subclass of an official operator that supplies execute()."""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import BaseOperator, ResumableJobMixin

from durable_jobs.core.mixin import DurableJobMixin


class GoodOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "good_job_id"

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        job = self.hook.submit()
        if not job:
            raise RuntimeError("the batch service returned no job id")
        return job["id"]

    def get_job_status(self, external_id, context):
        return self.hook.get_status(external_id)

    def is_job_active(self, status):
        return status == "RUNNING"

    def is_job_succeeded(self, status):
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context):
        self.hook.wait(external_id)

    def get_job_result(self, external_id, context):
        return None


class TaggedSubmitRun(ResumableJobMixin, DatabricksSubmitRunOperator):
    template_fields = (*DatabricksSubmitRunOperator.template_fields, "tags")


class OurOrder(DurableJobMixin, DatabricksSubmitRunOperator):
    pass


class Inherits(GoodOperator):
    def submit_job(self, context):
        try:
            return self.hook.submit()["id"]
        except KeyError:
            raise RuntimeError("no id") from None


class CheckpointMixin(ResumableJobMixin):
    """A mixin-only base: its operator subclasses supply execute() and the key."""

    def get_job_result(self, external_id, context):
        return {"id": external_id}
