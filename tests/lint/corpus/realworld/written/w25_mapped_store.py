"""Written here (issue 18): a mapped task clearing its task store (only its own index) and all
indices writing the same asset store key."""

from __future__ import annotations

from airflow.sdk import Asset, dag, task
from pendulum import datetime

EVENTS = Asset(name="events", uri="s3://lake/events")


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def mapped_partitions():

    @task(outlets=[EVENTS])
    def load(partition: int, task_state_store=None, asset_state_store=None):
        task_state_store.clear()
        asset_state_store[EVENTS].set("last_offset", partition * 1000)

    load.expand(partition=[0, 1, 2, 3])


mapped_partitions()
