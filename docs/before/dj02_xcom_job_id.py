"""Before (DJ021): XCom as the memory of a job id across retries.

Airflow clears a task's XComs before each try, so ``xcom_pull`` finds nothing on the retry and
the run is submitted again. (The same task also trips DJ101: it submits with retries and keeps
no checkpoint.) After: task_state_store or ResumableJobMixin.
"""

from __future__ import annotations

from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.sdk import dag, task
from pendulum import datetime

PAYLOAD = {"run_name": "nightly", "tasks": []}


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def run_with_xcom_memory():

    @task(retries=3)
    def run_job(**context):
        ti = context["ti"]
        hook = DatabricksHook()
        run_id = ti.xcom_pull(key="run_id")  # cleared before every try: None on a retry
        if run_id is None:
            run_id = hook.submit_run(PAYLOAD)
            ti.xcom_push(key="run_id", value=run_id)
        return hook.get_run_state(run_id).result_state

    run_job()


run_with_xcom_memory()
