"""Hand-written TaskFlow split on EMR: submit task, @task.sensor, a report fed by the submit."""

from __future__ import annotations

from airflow.providers.amazon.aws.hooks.emr import EmrHook
from airflow.sdk import PokeReturnValue, dag, task
from pendulum import datetime

STEPS = [{"Name": "etl", "ActionOnFailure": "CONTINUE", "HadoopJarStep": {"Jar": "command-runner.jar"}}]


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", default_args={"retries": 2})
def emr_split():

    @task
    def add_step() -> str:  # expect: DJ051
        client = EmrHook(aws_conn_id="aws_default").get_conn()
        response = client.add_job_flow_steps(JobFlowId="j-1", Steps=STEPS)  # expect: DJ101
        return response["StepIds"][0]

    @task.sensor(poke_interval=60, timeout=6 * 3600, mode="reschedule")
    def step_done(step_id: str) -> PokeReturnValue:
        client = EmrHook(aws_conn_id="aws_default").get_conn()
        state = client.describe_step(ClusterId="j-1", StepId=step_id)["Step"]["Status"]["State"]
        return PokeReturnValue(is_done=state in ("COMPLETED", "FAILED", "CANCELLED"))

    @task
    def record(step_id: str):
        print("submitted", step_id)

    step = add_step()
    step_done(step) >> record.override(task_id="record_after_sensor")(step)
    record(step)  # expect: DJ052


emr_split()
