"""Near miss for DJ052: a split whose downstream and alert hang on the sensor. DJ051 is still
reported (info): the submit task succeeding only means the job was accepted."""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG, chain
from pendulum import datetime


def run_done(run_id: str) -> bool:
    return bool(run_id)


with DAG("split_ok", start_date=datetime(2025, 1, 1), schedule="@daily"):
    submit = DatabricksSubmitRunOperator(  # expect: DJ051
        task_id="submit",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/long"}}],
        wait_for_termination=False,
    )
    wait = PythonSensor(
        task_id="wait",
        python_callable=run_done,
        op_kwargs={"run_id": "{{ ti.xcom_pull(task_ids='submit', key='run_id') }}"},
        mode="reschedule",
        on_success_callback=print,
    )
    publish = EmptyOperator(task_id="publish")
    audit = EmptyOperator(task_id="audit")
    chain(submit, wait, publish)
    [submit, wait] >> audit
