"""Hand-written ResumableJobMixin operators with the checks of DJ071, DJ072, DJ074, DJ102."""

from __future__ import annotations

from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import BaseOperator
from airflow.sdk import ResumableJobMixin as Resumable


class _Methods:
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


class WrongOrder(BaseOperator, _Methods, Resumable):  # expect: DJ074
    external_id_key = "wrong_order_job_id"

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.hook.submit()


class SensorFirst(PythonSensor, Resumable):  # expect: DJ074
    external_id_key = "sensor_first_job_id"


class NoExecute(Resumable, _Methods, BaseOperator):  # expect: DJ071
    external_id_key = "no_execute_job_id"

    def submit_job(self, context):
        job = self.hook.submit()
        if job:
            return job["id"]
        return  # expect: DJ102


class CustomExecute(Resumable, _Methods, BaseOperator):  # expect: DJ072
    def execute(self, context):  # expect: DJ071
        job_id = self.submit_job(context)
        self.poll_until_complete(job_id, context)

    def submit_job(self, context):  # expect: DJ102
        for attempt in range(3):
            job = self.hook.submit()
            if job:
                return job["id"]


class KeepsKey(CustomExecute):
    external_id_key = "keeps_key_job_id"

    def execute(self, context):  # expect: DJ071
        return super().execute(context)
