"""Written here (issue 18): asset_state_store pulled from **context instead of being declared."""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import Asset, dag, task
from pendulum import datetime as pdt

ORDERS = Asset(name="orders", uri="s3://warehouse/orders")


@dag(start_date=pdt(2025, 1, 1), schedule="@daily", catchup=False)
def ctx_asset_store():

    @task(outlets=[ORDERS])
    def load(**context):
        store = context["asset_state_store"][ORDERS]
        store.set("watermark", datetime.now(tz=timezone.utc).isoformat())

    load()


ctx_asset_store()
