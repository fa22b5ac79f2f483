"""Before (DJ081-DJ087): state-store calls that break the stores' key rules.

After: JSON values, delete() instead of None, flat keys, aware timestamps, asset_state_store
as a named kwarg without **context, and per-index keys / REST clears for mapped tasks.
"""

from __future__ import annotations

from datetime import datetime

from airflow.sdk import Asset, dag, task
from pendulum import datetime as pdatetime

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


@dag(start_date=pdatetime(2025, 1, 1), schedule="@daily")
def store_misuse():

    @task(retries=2)
    def checkpointing(**context):
        task_state_store = context["task_state_store"]
        task_state_store.set("started_at", datetime.now())        # DJ082: not JSON
        task_state_store.set("s3/orders.offset", 42)              # DJ083: dots and slashes
        task_state_store.set("job_id", None)                      # DJ081: rejected

    @task(inlets=[ORDERS], outlets=[ORDERS])
    def load(asset_state_store=None, **context):                  # DJ085
        store = asset_state_store[ORDERS]
        store.set("watermark", datetime.utcnow().isoformat())     # DJ084: naive timestamp

    @task(outlets=[ORDERS])
    def load_partition(partition_id: int, asset_state_store=None, **context):
        asset_state_store[ORDERS].set("offset", partition_id)     # DJ087: same key, every index
        context["task_state_store"].clear()                       # DJ086: this index only

    checkpointing() >> load() >> load_partition.expand(partition_id=[0, 1, 2, 3])


store_misuse()
