"""A genuinely long job: submit, then a ``mode="reschedule"`` sensor (seed section 6, third case).

The submit task succeeds when Databricks *accepts* the run, not when the run succeeds. Keep
``durable=True`` on it anyway: a retry of the submit must not start a second run. Everything
downstream (and every alert or SLA) depends on the sensor, which alone reports the real outcome.
The sensor submits nothing, so it needs no checkpoint.
"""

from __future__ import annotations

import pendulum
from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.sdk import DAG, PokeReturnValue, task

from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="example_databricks_split_reschedule_sensor",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "databricks"],
) as dag:
    submit = DatabricksSubmitRunOperator(
        task_id="submit_backfill",
        tasks=[{"task_key": "backfill", "notebook_task": {"notebook_path": "/Shared/backfill"}}],
        wait_for_termination=False,  # the split: this task ends at acceptance
        durable=True,  # still needed: a retried submit must not start a second run
        retries=3,
    )

    @task.sensor(mode="reschedule", poke_interval=300, timeout=12 * 3600, retries=2)
    def wait_for_backfill(databricks_run_id: int) -> PokeReturnValue:
        state = DatabricksHook().get_run_state(databricks_run_id)
        if state.is_terminal and not state.is_successful:
            raise RuntimeError(f"Databricks run {databricks_run_id} ended {state}")
        return PokeReturnValue(is_done=state.is_terminal, xcom_value=databricks_run_id)

    @task
    def publish(databricks_run_id: int) -> str:
        return f"backfill run {databricks_run_id} published"

    # Downstream depends on the sensor's outcome, never on the submit's acceptance.
    publish(wait_for_backfill(submit.output["run_id"]))
