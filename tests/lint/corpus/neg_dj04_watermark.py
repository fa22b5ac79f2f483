"""Near miss for DJ041: the watermark in asset_state_store; a Variable watermark only read."""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import Asset, Variable, task

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


@task(inlets=[ORDERS], outlets=[ORDERS])
def load(asset_state_store=None):
    asset_state_store = asset_state_store[ORDERS]
    floor = Variable.get("orders_min_watermark", default_var="2026-01-01T00:00:00+00:00")
    watermark = asset_state_store.get("watermark", default=floor)
    print(watermark)
    asset_state_store.set("watermark", datetime.now(tz=timezone.utc).isoformat())
