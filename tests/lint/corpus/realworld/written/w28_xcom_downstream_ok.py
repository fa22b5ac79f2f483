"""Written here (issue 18): near miss for DJ021 - a sensor task pulls the *submit* task's job id
from XCom (the normal hand-over). Only the split (DJ051) is a finding."""

from __future__ import annotations

from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def xcom_handover():

    @task
    def submit():
        return DatabricksHook().submit_run({"tasks": [{"task_key": "t"}]})

    @task.sensor(poke_interval=60, mode="reschedule")
    def finished(**context):
        run_id = context["ti"].xcom_pull(task_ids="submit", key="return_value")
        return DatabricksHook().get_run_state(run_id).is_terminal

    submit() >> finished()


xcom_handover()
