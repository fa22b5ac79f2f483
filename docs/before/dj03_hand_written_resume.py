"""Before (DJ031): reconnect-or-submit written by hand on a Variable (guide section 5).

The Variable is shared by every run of the DAG, so a concurrent run reconnects to another
run's job. The operator also lists BaseOperator first and never calls execute_resumable - but
it is not a mixin subclass yet, so only DJ031 applies. After: a ResumableJobMixin operator.
"""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import BaseOperator


class MySparkOperator(BaseOperator):
    def execute(self, context):
        job_id = Variable.get("spark_job_id", default_var=None)
        if job_id and self._is_running(job_id):
            self._wait(job_id)
        else:
            job_id = self.hook.submit(self.application)
            Variable.set("spark_job_id", job_id)   # global, race-prone
            self._wait(job_id)

    def _is_running(self, job_id: str) -> bool:
        return self.hook.get_status(job_id) in ("RUNNING", "PENDING")

    def _wait(self, job_id: str) -> None:
        self.hook.wait(job_id)
