"""Near misses for DJ081-DJ087: JSON values, delete() instead of None, flat keys, aware
timestamps, asset_state_store without **context, per-index keys, clear() when not mapped."""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import Asset, dag, task
from pendulum import datetime as pdatetime

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


@dag(start_date=pdatetime(2025, 1, 1), schedule="@daily")
def store_ok():

    @task(retries=3)
    def extract(**context):
        store = context["task_state_store"]
        store.set("started_at", datetime.now(tz=timezone.utc).isoformat())
        store.set("ids", sorted({3, 1, 2}))
        store.set("logical_date", context["logical_date"].isoformat())
        store.delete("last_error")
        store.clear()

    @task(inlets=[ORDERS], outlets=[ORDERS])
    def load(asset_state_store=None):
        asset_state_store = asset_state_store[ORDERS]
        asset_state_store.set("watermark", datetime.now(tz=timezone.utc).isoformat())

    @task(outlets=[ORDERS])
    def load_partition(partition_id: int, asset_state_store=None):
        name = f"offset_{partition_id}"
        asset_state_store[ORDERS].set(name, partition_id)

    extract() >> load() >> load_partition.expand(partition_id=[0, 1, 2])


store_ok()
