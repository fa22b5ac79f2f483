"""Written here (issue 18): reconnect-or-submit written by hand around the Databricks hook, the
run id kept in a Variable."""

from __future__ import annotations

from airflow.models import Variable
from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def hand_resume():

    @task(retries=3)
    def train():
        hook = DatabricksHook()
        run_id = Variable.get("train_run_id", default_var=None)
        if run_id is None:
            run_id = hook.submit_run({"tasks": [{"task_key": "train"}]})
            Variable.set("train_run_id", run_id)
        hook.get_run_state(run_id)
        Variable.delete("train_run_id")

    train()


hand_resume()
