"""Before (DJ011): a Variable used as a per-run cursor inside a task, checkpointed after each
record so that a retry resumes where the crashed try stopped.

The cursor is global: two concurrent runs of this DAG, or any other DAG, overwrite it. (A cursor
written back once per run, to start the next run where this one ended, is DJ041 instead.)
After: task_state_store (see docs/lint.md#dj011).
"""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime


def fetch_records_after(cursor: int) -> list[dict]:
    return []


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def etl_with_variable_cursor():

    @task(retries=3)
    def process(**context):
        cursor = int(Variable.get("etl_cursor", default_var=0))
        for record in fetch_records_after(cursor):
            cursor = record["id"]
            Variable.set("etl_cursor", cursor)  # global, any task can overwrite

    process()


etl_with_variable_cursor()
