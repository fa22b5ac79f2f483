"""The Dataproc demo's contrast run: the *official* ``DataprocSubmitJobOperator`` with the example's job
(``example_dags/google_dataproc.py``). Linked into the demo's DAGs folder only."""

from __future__ import annotations

import pendulum
from airflow.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator
from airflow.sdk import DAG

from durable_jobs.example_dags.google_dataproc import dag as example

task = example.task_dict["aggregate_sales"]

with DAG("example_google_dataproc_official", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
         catchup=False) as official_dag:
    DataprocSubmitJobOperator(task_id="aggregate_sales", project_id=task.project_id, region=task.region,
                              job={k: v for k, v in task.job.items() if k != "reference"}, deferrable=True,
                              retries=task.retries, polling_interval_seconds=30)

from airflow.providers.google.cloud.operators.dataproc import DataprocCreateBatchOperator  # noqa: E402

from durable_jobs.example_dags.google_dataproc_batch import dag as batch_example  # noqa: E402

batch_task = batch_example.task_dict["sales_report"]

with DAG("example_google_dataproc_batch_official", schedule=None,
         start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), catchup=False) as official_batch_dag:
    DataprocCreateBatchOperator(task_id="sales_report", project_id=batch_task.project_id, region=batch_task.region,
                                batch=batch_task.batch, deferrable=True, retries=batch_task.retries,
                                polling_interval_seconds=30)
