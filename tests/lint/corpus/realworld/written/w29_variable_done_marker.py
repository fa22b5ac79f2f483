"""Written here (issue 18): a per-run "already exported" marker kept in a Variable keyed by the
logical date, so a retry skips the export - per-run state."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime


def export(ds: str) -> None:
    print("export", ds)


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def export_once():

    @task(retries=3)
    def export_day(ds=None):
        if Variable.get(f"exported_{ds}", default_var="no") == "yes":
            return
        export(ds)
        Variable.set(f"exported_{ds}", "yes")

    export_day()


export_once()
