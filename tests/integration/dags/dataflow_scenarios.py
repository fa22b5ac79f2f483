"""DAGs for the Dataflow integration tests (run through Airflow against the REST emulator).

A template path or parameter containing the word ``fail`` ends FAILED; ``streaming=true`` makes a streaming job.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.google.cloud.operators.dataflow import (
    DataflowTemplatedJobStartOperator as OfficialDataflowTemplatedJobStartOperator,
)
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.dataflow import (
    DataflowStartFlexTemplateOperator,
    DataflowTemplatedJobStartOperator,
)
from durable_jobs.testing.emulators.dataflow import PROJECT, REGION

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
TEMPLATE = "gs://dataflow-templates/latest/Word_Count"


def templated(dag_id: str, *, operator=DataflowTemplatedJobStartOperator, **kwargs) -> DAG:
    args = dict(template=TEMPLATE, project_id=PROJECT, location=REGION, job_name="wordcount-{{ ds_nodash }}",
                parameters={"inputFile": "gs://in/{{ ds }}.txt"}, options={"tempLocation": "gs://tmp/x"},
                poll_sleep=0.2)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


def flex(dag_id: str, **kwargs) -> DAG:
    body = {"launchParameter": {"jobName": "flexjob", "containerSpecGcsPath": "gs://t/spec.json",
                                "parameters": {"day": "{{ ds }}"}}}
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        DataflowStartFlexTemplateOperator(task_id="run", body=body, project_id=PROJECT, location=REGION,
                                          poll_sleep=0.2, **{**RETRIES, **kwargs})
    return dag


df_sync = templated("df_sync")
df_deferrable = templated("df_deferrable", deferrable=True)
df_fixed_name = templated("df_fixed_name", append_job_name=False)
df_fails = templated("df_fails", parameters={"mode": "fail"}, retries=1)
df_fails_deferrable = templated("df_fails_deferrable", parameters={"mode": "fail"}, retries=1, deferrable=True)
df_streaming = templated("df_streaming", parameters={"streaming": "true"})
df_no_wait = templated("df_no_wait", wait_until_finished=False)
df_official_fixed = templated("df_official_fixed", operator=OfficialDataflowTemplatedJobStartOperator,
                              append_job_name=False)
df_official_deferrable = templated("df_official_deferrable", operator=OfficialDataflowTemplatedJobStartOperator,
                                   deferrable=True)
df_flex = flex("df_flex")
df_flex_deferrable = flex("df_flex_deferrable", deferrable=True)
