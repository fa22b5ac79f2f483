"""XCom used to remember a job id across retries: own-task pulls in three shapes."""

from __future__ import annotations

from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, BaseOperator, task
from pendulum import datetime


class Client:
    def start(self) -> str:
        return "run-1"

    def wait(self, run_id: str) -> None:
        pass


@task
def run_training(**context):
    ti = context["ti"]
    run_id = ti.xcom_pull(key="run_id")  # expect: DJ021
    if run_id is None:
        run_id = Client().start()
        ti.xcom_push(key="run_id", value=run_id)
    Client().wait(run_id)


class StepOperator(BaseOperator):
    def execute(self, context):
        step_id = context["ti"].xcom_pull(task_ids=self.task_id, key="emr_step_id")  # expect: DJ021
        if not step_id:
            step_id = Client().start()
            context["ti"].xcom_push(key="emr_step_id", value=step_id)
        Client().wait(step_id)


def submit_batch(ti, **_):
    previous = ti.xcom_pull(task_ids="submit_batch", key="batch_job_id")  # expect: DJ021
    return previous or Client().start()


with DAG("xcom_memory", start_date=datetime(2025, 1, 1), schedule=None):
    steps = StepOperator(task_id="steps")
    batch = PythonOperator(task_id="submit_batch", python_callable=submit_batch)
    run_training() >> steps >> batch
