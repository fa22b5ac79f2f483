"""Hand-written submits with retries and no checkpoint: boto3, hook, SDK, helper."""

from __future__ import annotations

import boto3
from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, task
from databricks.sdk import WorkspaceClient
from pendulum import datetime


def _start_glue(name: str) -> str:
    glue = boto3.client("glue")
    return glue.start_job_run(JobName=name)["JobRunId"]  # expect: DJ101


def submit_notebook(**context):
    hook = DatabricksHook()
    run_id = hook.submit_run({"run_name": context["ds"], "tasks": []})  # expect: DJ101
    hook.get_run_state(run_id)


with DAG("hand_submit", start_date=datetime(2025, 1, 1), schedule="@daily",
         default_args={"retries": 2}):

    @task
    def batch_job():
        client = boto3.client("batch")
        job = client.submit_job(jobName="n", jobQueue="q", jobDefinition="d")  # expect: DJ101
        client.get_waiter("job_complete").wait(jobs=[job["jobId"]])

    @task(retries=4)
    def sdk_job():
        w = WorkspaceClient()
        run = w.jobs.submit(run_name="sdk", tasks=[])  # expect: DJ101
        return run.result().run_id

    @task(retries=1)
    def glue_job():
        return _start_glue("nightly")

    notebook = PythonOperator(task_id="notebook", python_callable=submit_notebook, retries=3)
    batch_job() >> sdk_job() >> glue_job() >> notebook
