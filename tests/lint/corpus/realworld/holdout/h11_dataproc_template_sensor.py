"""Hold-out: a Dataproc job submitted asynchronously and watched by DataprocJobSensor through a
templated xcom_pull."""

from __future__ import annotations

from airflow.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator
from airflow.providers.google.cloud.sensors.dataproc import DataprocJobSensor
from airflow.sdk import DAG
from pendulum import datetime

with DAG("dataproc_async", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    submit = DataprocSubmitJobOperator(
        task_id="submit",
        job={"placement": {"cluster_name": "etl"}, "pyspark_job": {"main_python_file_uri": "gs://c/m.py"}},
        region="europe-west1",
        project_id="p",
        asynchronous=True,
    )
    watch = DataprocJobSensor(
        task_id="watch",
        dataproc_job_id="{{ task_instance.xcom_pull(task_ids='submit') }}",
        region="europe-west1",
        project_id="p",
        poke_interval=60,
    )
    submit >> watch
