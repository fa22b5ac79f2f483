"""Written here (issue 18): Glue job split into submit + sensor, the wait turned off after the
constructor, and the report task hanging off the submit task instead of the sensor."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG
from pendulum import datetime


def publish_report(**context):
    print("report for", context["ds"])


with DAG("nightly_glue_etl", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    run_etl = GlueJobOperator(
        task_id="run_etl",
        job_name="orders_etl",
        script_args={"--date": "{{ ds }}"},
    )
    run_etl.wait_for_completion = False

    wait_etl = GlueJobSensor(
        task_id="wait_etl",
        job_name="orders_etl",
        run_id=run_etl.output,
        mode="reschedule",
    )

    report = PythonOperator(task_id="report", python_callable=publish_report)

    run_etl >> wait_etl
    run_etl >> report
