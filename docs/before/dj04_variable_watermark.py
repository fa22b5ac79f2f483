"""Before (DJ041): a per-asset watermark kept in a Variable (guide section 4).

Any DAG or task can overwrite ``watermark_orders``; the value has no asset scope.
After: asset_state_store on the asset the task produces.
"""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import Asset, dag, task
from pendulum import datetime

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


def load_since(watermark: str) -> str:
    return watermark


@dag(start_date=datetime(2025, 1, 1), schedule="@hourly")
def orders_incremental():

    @task(outlets=[ORDERS])
    def load(asset_name: str = "orders"):
        watermark = Variable.get(f"watermark_{asset_name}", default_var="2026-01-01T00:00:00+00:00")
        new_offset = load_since(watermark)
        Variable.set(f"watermark_{asset_name}", new_offset)   # global, not scoped to asset

    load()


orders_incremental()
