"""Before (DJ051, DJ052): submit with wait_for_termination=False, then a sensor on the run.

DJ051 (info) states that the submit task succeeding only means *accepted* and lays out the
trade-off; it does not pick a side. DJ052 (error) is the real bug here: ``publish`` depends on
the submit task, so it runs even when the job fails later.
"""

from __future__ import annotations

from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG
from pendulum import datetime

NOTEBOOK_PATH = "/Shared/nightly"


def run_finished(run_id: str) -> bool:
    state = DatabricksHook().get_run_state(run_id)
    if state.is_terminal and not state.is_successful:
        raise RuntimeError(f"run {run_id} failed: {state.state_message}")
    return state.is_terminal


with DAG("nightly_notebook", start_date=datetime(2025, 1, 1), schedule="@daily"):
    submit = DatabricksSubmitRunOperator(
        task_id="submit",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        wait_for_termination=False,
    )
    wait = PythonSensor(
        task_id="wait",
        python_callable=run_finished,
        op_kwargs={"run_id": "{{ ti.xcom_pull(task_ids='submit', key='run_id') }}"},
        mode="reschedule",
        retries=3,
    )
    publish = EmptyOperator(task_id="publish")
    submit >> wait
    submit >> publish
