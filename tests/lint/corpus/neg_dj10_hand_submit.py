"""Near misses for DJ101/DJ102: a checkpointed hand-written submit, no retries, retries=0."""

from __future__ import annotations

import boto3
from airflow.sdk import NEVER_EXPIRE, dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def hand_submit_ok():

    @task(retries=3)
    def checkpointed(**context):
        store = context["task_state_store"]
        client = boto3.client("batch")
        job_id = store.get("batch_job_id")
        if job_id is None:
            job_id = client.submit_job(jobName="n", jobQueue="q", jobDefinition="d")["jobId"]
            store.set("batch_job_id", job_id, retention=NEVER_EXPIRE)
        client.get_waiter("job_complete").wait(jobs=[job_id])

    @task
    def no_retries():
        boto3.client("glue").start_job_run(JobName="adhoc")

    @task(retries=0)
    def zero_retries():
        boto3.client("glue").start_job_run(JobName="adhoc")

    checkpointed() >> no_retries() >> zero_retries()


hand_submit_ok()
