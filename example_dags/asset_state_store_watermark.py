"""``asset_state_store``: a watermark kept per asset, across DAG runs (seed section 4).

Declare ``asset_state_store=None`` as a keyword argument (never together with ``**context``),
write timezone-aware timestamps, and remember there is no TTL. When mapped indices write to the
same asset, give each index its own key: the last write wins otherwise.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pendulum
from airflow.sdk import DAG, Asset, task

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")
PARTITIONED = Asset(name="orders/partitioned", uri="s3://warehouse/orders/partitioned")
START = pendulum.datetime(2026, 1, 1, tz="UTC")


def fetch_records_since(watermark: str) -> list[dict]:
    return [{"id": 1}, {"id": 2}, {"id": 3}]


with DAG(dag_id="example_asset_state_producer", schedule=None, start_date=START, catchup=False,
         tags=["durable-jobs", "asset_state_store"]) as producer:

    @task(inlets=[ORDERS], outlets=[ORDERS])
    def load(asset_state_store=None) -> int:  # injected by Airflow: declare it as a keyword argument
        store = asset_state_store[ORDERS]
        watermark = store.get("watermark", default="2026-01-01T00:00:00+00:00")
        records = fetch_records_since(watermark)
        now = datetime.now(tz=timezone.utc).isoformat()
        store.set("watermark", now)
        store.set("last_run_summary", {"rows_loaded": len(records), "completed_at": now})
        return len(records)

    load()


with DAG(dag_id="example_asset_state_consumer", schedule=[ORDERS], start_date=START, catchup=False,
         tags=["durable-jobs", "asset_state_store"]) as consumer:

    @task(inlets=[ORDERS])
    def consume(asset_state_store=None) -> str:
        store = asset_state_store[ORDERS]
        summary = store.get("last_run_summary") or {}
        return f"Processing {summary.get('rows_loaded')} rows up to {store.get('watermark')}"

    consume()


with DAG(dag_id="example_asset_state_mapped_producer", schedule=None, start_date=START, catchup=False,
         tags=["durable-jobs", "asset_state_store"]) as mapped_producer:

    @task(outlets=[PARTITIONED])
    def load_partition(partition_id: int, asset_state_store=None) -> int:
        store = asset_state_store[PARTITIONED]
        new_offset = (partition_id + 1) * 100
        store.set(f"offset_{partition_id}", new_offset)  # a distinct key per index: no race
        return new_offset

    load_partition.expand(partition_id=[0, 1, 2])
