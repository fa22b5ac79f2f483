"""The BigQuery demo's contrast run: the *official* ``BigQueryInsertJobOperator`` with the example's job
(``example_dags/google_bigquery.py``). Linked into the demo's DAGs folder only."""

from __future__ import annotations

import pendulum
from airflow.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator
from airflow.sdk import DAG

from durable_jobs.example_dags.google_bigquery import dag as example

task = example.task_dict["merge_sales_daily"]

with DAG("example_google_bigquery_official", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
         catchup=False) as official_dag:
    BigQueryInsertJobOperator(task_id="merge_sales_daily", configuration=task.configuration, job_id=task.job_id,
                              location=task.location, deferrable=True, retries=task.retries, poll_interval=30)
