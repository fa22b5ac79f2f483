"""Hold-out: a TaskFlow task starting a Glue job through boto3 and waiting with a waiter; its
retries come from the @dag's default_args, and nothing is checkpointed."""

from __future__ import annotations

import boto3
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False,
     default_args={"owner": "etl", "retries": 3})
def glue_by_hand():

    @task
    def run_glue():
        glue = boto3.client("glue")
        run = glue.start_job_run(JobName="orders_compaction")
        waiter = glue.get_waiter("job_run_succeeded")
        waiter.wait(JobName="orders_compaction", RunId=run["JobRunId"])

    run_glue()


glue_by_hand()
