"""Written here (issue 18): a per-table high-water mark in a Variable, updated from the run's
data interval."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@hourly", catchup=False)
def cdc_copy():

    @task(retries=2)
    def copy_table(table: str, **context):
        since = Variable.get(f"{table}_high_water", default_var="1970-01-01T00:00:00+00:00")
        print("copy", table, "since", since)
        Variable.set(f"{table}_high_water", context["data_interval_end"].isoformat())

    copy_table("orders")


cdc_copy()
