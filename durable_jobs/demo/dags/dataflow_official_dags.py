"""The Dataflow demo's contrast run: the *official* ``DataflowTemplatedJobStartOperator`` with the example's
template, job name and parameters (``example_dags/google_dataflow.py``). Linked into the demo's DAGs folder only."""

from __future__ import annotations

import pendulum
from airflow.providers.google.cloud.operators.dataflow import DataflowTemplatedJobStartOperator
from airflow.sdk import DAG

from durable_jobs.example_dags.google_dataflow import dag as example

task = example.task_dict["word_count"]

with DAG("example_google_dataflow_official", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
         catchup=False) as official_dag:
    DataflowTemplatedJobStartOperator(task_id="word_count", project_id=task.project_id, location=task.location,
                                      template=task.template, job_name=task.job_name, parameters=task.parameters,
                                      options=task.options, retries=task.retries, poll_sleep=30)
