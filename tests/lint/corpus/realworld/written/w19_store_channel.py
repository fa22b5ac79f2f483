"""Written here (issue 18): one task writes a task_state_store key that a different task reads,
and a connection URI is stashed in the store."""

from __future__ import annotations

from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def store_channel():

    @task
    def extract(task_state_store=None):
        task_state_store.set("row_count", 42)
        task_state_store.set("warehouse_conn_uri", "postgresql://etl@db/warehouse")

    @task
    def load(task_state_store=None):
        rows = task_state_store.get("row_count", default=0)
        print(rows)

    extract() >> load()


store_channel()
