"""Near misses for DJ051: one deferrable task that waits, a synchronous hand-written task that
submits and waits, and a fire-and-forget submit followed by a sensor on something else."""

from __future__ import annotations

from airflow.providers.amazon.aws.hooks.glue import GlueJobHook
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.sensors.filesystem import FileSensor
from airflow.sdk import DAG, task
from pendulum import datetime

with DAG("no_split", start_date=datetime(2025, 1, 1), schedule="@daily"):
    one_task = DatabricksSubmitRunOperator(
        task_id="one_task",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/short"}}],
        deferrable=True,
        wait_for_termination=True,
    )

    @task
    def glue_sync():
        hook = GlueJobHook(job_name="compact")
        run_id = hook.initialize_job()["JobRunId"]
        hook.job_completion("compact", run_id)
        return run_id

    @task.sensor(mode="reschedule")
    def compacted(run_id: str) -> bool:
        return GlueJobHook(job_name="compact").get_job_state("compact", run_id) == "SUCCEEDED"

    kick_off = DatabricksSubmitRunOperator(
        task_id="kick_off",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/export"}}],
        wait_for_termination=False,
    )
    landing = FileSensor(task_id="landing", filepath="/data/landing/_SUCCESS", mode="reschedule")
    one_task >> compacted(glue_sync()) >> kick_off >> landing
