"""Written here (issue 18): naive utcnow() timestamps written to the asset state store, once
through a helper and once inside a summary dict."""

from __future__ import annotations

from datetime import datetime

from airflow.sdk import Asset, dag, task
from pendulum import datetime as pdt

ORDERS = Asset(name="orders", uri="s3://warehouse/orders")


def utc_stamp() -> str:
    return datetime.utcnow().isoformat()


@dag(start_date=pdt(2025, 1, 1), schedule="@daily", catchup=False)
def orders_loader():

    @task(inlets=[ORDERS], outlets=[ORDERS])
    def load(asset_state_store=None):
        store = asset_state_store[ORDERS]
        finished = datetime.utcnow().isoformat()
        store.set("watermark", utc_stamp())
        store.set("last_run_summary", {"rows": 10, "finished_at": finished})

    load()


orders_loader()
