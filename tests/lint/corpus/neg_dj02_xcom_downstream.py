"""Near miss for DJ021: job ids passed *downstream* through XCom, and non-job own pulls."""

from __future__ import annotations

from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule=None)
def xcom_downstream():

    @task
    def launch(**context):
        context["ti"].xcom_push(key="job_id", value="job-1")
        return "job-1"

    @task
    def report(job_id: str, **context):
        pushed = context["ti"].xcom_pull(task_ids="launch", key="job_id")
        rows = context["ti"].xcom_pull(key="row_count")
        print(job_id, pushed, rows)

    report(launch())


xcom_downstream()
