"""Written here (issue 18): a task that gives a Variable its default value when missing and
then reads it; no job is submitted, so this is not reconnect-or-submit logic. Clean."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def report_settings():

    @task
    def settings():
        if not Variable.get("report_run_prefix", default_var=None):
            Variable.set("report_run_prefix", "daily")
        return Variable.get("report_run_prefix")

    settings()


report_settings()
