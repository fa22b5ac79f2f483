"""Written here (issue 18): AWS Batch fire-and-forget watched by an astronomer-providers
``...SensorAsync`` sensor."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.batch import BatchOperator
from airflow.sdk import DAG
from astronomer.providers.amazon.aws.sensors.batch import BatchSensorAsync
from pendulum import datetime

with DAG("batch_scoring", start_date=datetime(2025, 1, 1), schedule="@hourly", catchup=False):
    submit_scoring = BatchOperator(
        task_id="submit_scoring",
        job_name="score-{{ ts_nodash }}",
        job_queue="scoring",
        job_definition="scorer:7",
        wait_for_completion=False,
    )
    wait_scoring = BatchSensorAsync(task_id="wait_scoring", job_id=submit_scoring.output)
    submit_scoring >> wait_scoring
