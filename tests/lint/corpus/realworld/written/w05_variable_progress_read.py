"""Written here (issue 18): per-run progress kept in a Variable keyed by the run id; the task
reads it (the write happens in a shared library outside this file)."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime

from company.etl import load_partitions  # writes progress_<run_id> as it goes


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def partition_loader():

    @task(retries=3)
    def load(**context):
        run_id = context["run_id"]
        done = int(Variable.get(f"progress_{run_id}", default_var=0))
        bucket = Variable.get("landing_bucket")
        load_partitions(bucket, start=done, run_id=run_id)

    load()


partition_loader()
