"""``task_state_store``: a cursor that survives retries of the same task (seed section 3).

The store is scoped to this task instance (dag_id + run_id + task_id + map_index) and kept
across retries, so a retry resumes after the last processed record instead of starting over.
Values must be JSON (no None, no datetime); keys short, without dots or slashes.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import dag, task

RECORDS = [{"id": i, "amount": i * 10} for i in range(1, 21)]


def fetch_records_after(cursor: int) -> list[dict]:
    return [r for r in RECORDS if r["id"] > cursor]


@dag(
    dag_id="example_task_state_store_checkpoint",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    schedule="@daily",
    catchup=False,
    tags=["durable-jobs", "task_state_store"],
)
def etl_with_checkpoint():
    @task(retries=3)
    def process_records(**context) -> int:
        task_state_store = context["task_state_store"]  # injected by Airflow, no setup needed
        cursor = task_state_store.get("last_cursor", default=0)
        processed = 0
        for record in fetch_records_after(cursor):
            processed += record["amount"]
            cursor = record["id"]
            task_state_store.set("last_cursor", cursor)  # checkpoint after each record
        return cursor

    process_records()


dag = etl_with_checkpoint()
