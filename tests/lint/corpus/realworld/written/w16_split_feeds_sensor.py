"""Written here (issue 18): EMR steps added without waiting; a TaskFlow task extracts the step id
from the submit's XCom and feeds the sensor. Depending on the sensor would be a cycle, so only the
split itself (DJ051) is a finding."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
from airflow.sdk import DAG, task
from pendulum import datetime


@task
def first_step(step_ids: list[str]) -> str:
    return step_ids[0]


with DAG("emr_steps", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    add_steps = EmrAddStepsOperator(
        task_id="add_steps",
        job_flow_id="j-ABCDEF",
        steps=[{"Name": "etl", "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit"]}}],
    )
    step_id = first_step(add_steps.output)
    watch = EmrStepSensor(task_id="watch", job_flow_id="j-ABCDEF", step_id=step_id, mode="reschedule")
    add_steps >> step_id >> watch
