"""Classic submit-and-poll split whose downstream and alert hang on the submit task."""

from __future__ import annotations

from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG
from pendulum import datetime


def notify_success(context):
    print("done", context["ti"].task_id)


def run_done(run_id: str) -> bool:
    return DatabricksHook().get_run_state(run_id).is_terminal


with DAG("split_databricks", start_date=datetime(2025, 1, 1), schedule="@daily"):
    submit = DatabricksSubmitRunOperator(  # expect: DJ051
        task_id="submit",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/etl"}}],
        wait_for_termination=False,
        on_success_callback=notify_success,  # expect: DJ052
    )
    wait = PythonSensor(task_id="wait", python_callable=run_done,
                        op_kwargs={"run_id": submit.output}, poke_interval=60)
    notify = EmptyOperator(task_id="notify")
    publish = EmptyOperator(task_id="publish")
    submit >> [wait, notify]  # expect: DJ052
    wait >> publish
