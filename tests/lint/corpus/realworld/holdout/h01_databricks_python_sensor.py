"""Hold-out (written before running the lint): Databricks run submitted without waiting through
default_args, a PythonSensor polling the run id from the submit's XCom, and an email task hanging
off the submit task."""

from __future__ import annotations

from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.smtp.operators.smtp import EmailOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG
from pendulum import datetime


def run_done(run_id: str) -> bool:
    return DatabricksHook().get_run_state(int(run_id)).is_terminal


with DAG("dbx_nightly", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False,
         default_args={"wait_for_termination": False, "retries": 1}):
    submit = DatabricksSubmitRunOperator(
        task_id="submit",
        tasks=[{"task_key": "nightly", "notebook_task": {"notebook_path": "/Repos/etl/nightly"}}],
    )
    done = PythonSensor(
        task_id="done",
        python_callable=run_done,
        op_kwargs={"run_id": "{{ ti.xcom_pull(task_ids='submit') }}"},
        mode="reschedule",
    )
    mail = EmailOperator(task_id="mail", to="team@example.com", subject="nightly done", html_content="ok")
    submit >> done
    submit >> mail
