"""Hold-out: the success alert attached to the submit task of a split."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.batch import BatchOperator
from airflow.providers.amazon.aws.sensors.batch import BatchSensor
from airflow.sdk import DAG
from pendulum import datetime


def alert_success(context):
    print("job succeeded", context["ti"].task_id)


with DAG("batch_alerts", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    submit = BatchOperator(
        task_id="submit",
        job_name="features",
        job_queue="cpu",
        job_definition="features:3",
        wait_for_completion=False,
        on_success_callback=alert_success,
    )
    wait = BatchSensor(task_id="wait", job_id=submit.output, mode="reschedule")
    submit >> wait
