"""The base order of a ``ResumableJobMixin`` operator, tried on the installed Airflow.

Run by tests/docs/test_snippets.py: the specification's order must raise ``TypeError`` when the
operator is created (Airflow 3.3.2), the mixin-first order must work.
"""

from __future__ import annotations

from airflow.sdk import BaseOperator, ResumableJobMixin


class _SixMethods:
    """The six methods every ResumableJobMixin operator implements (trivially, for this check)."""

    external_id_key = "batch_job_id"

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return "job-1"

    def get_job_status(self, external_id, context):
        return "SUCCEEDED"

    def is_job_active(self, status):
        return status in ("RUNNING", "PENDING", "QUEUED")

    def is_job_succeeded(self, status):
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context):
        return None

    def get_job_result(self, external_id, context):
        return None


# [START wrong]
class SpecOrderOperator(_SixMethods, BaseOperator, ResumableJobMixin):  # the specification's order
    pass


try:
    SpecOrderOperator(task_id="batch")
except TypeError as err:
    print(f"TypeError: {err}")  # object.__init__() takes exactly one argument (the instance to initialize)
# [END wrong]
else:
    raise AssertionError("BaseOperator-first no longer raises: update the docs")


# [START right]
class MixinFirstOperator(_SixMethods, ResumableJobMixin, BaseOperator):  # the mixin first
    pass


operator = MixinFirstOperator(task_id="batch")
assert operator.durable is True  # the default
# [END right]
