"""Hand-written reconnect-or-submit on Variables, in execute() and in a TaskFlow task."""

from __future__ import annotations

from airflow.sdk import BaseOperator, Variable, dag, task
from pendulum import datetime


class MySparkOperator(BaseOperator):
    def execute(self, context):
        job_id = Variable.get("spark_job_id", default_var=None)
        if job_id and self._is_running(job_id):  # expect: DJ031
            self._wait(job_id)
        else:
            job_id = self.hook.submit(self.application)
            Variable.set("spark_job_id", job_id)
            self._wait(job_id)

    def _is_running(self, job_id):
        return self.hook.get_status(job_id) == "RUNNING"

    def _wait(self, job_id):
        self.hook.wait(job_id)


def client():
    raise NotImplementedError


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def resume_by_hand():

    @task(retries=3)
    def train(**context):
        key = f"train_run_{context['ds_nodash']}"
        run = Variable.get(key, default_var=None)
        if not run:  # expect: DJ031
            run = client().start_training()
            Variable.set(key, run)
        client().wait(run)

    @task
    def refresh():
        if Variable.get("refresh_query_id", default_var=None):  # expect: DJ031
            return client().attach("refresh")
        return client().start("refresh")

    train() >> refresh()


resume_by_hand()
