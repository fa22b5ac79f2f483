"""Hold-out: a processed-rows counter kept in a Variable and bumped by every run."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@hourly", catchup=False)
def counter():

    @task
    def count(rows: int = 10):
        total = int(Variable.get("rows_processed_total", default_var=0))
        Variable.set("rows_processed_total", total + rows)

    count()


counter()
