"""Watermarks kept in Variables: by key name (f-string too) and by timestamp value."""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import Variable, task


def load_since(since: str) -> int:
    return 0


@task(outlets=["s3://warehouse/orders"])
def incremental(asset_name: str = "orders"):
    since = Variable.get(f"watermark_{asset_name}", default_var="1970-01-01")
    load_since(since)
    Variable.set(f"watermark_{asset_name}", datetime.now(tz=timezone.utc).isoformat())  # expect: DJ041


@task
def cdc(**context):
    position = context["data_interval_end"]
    Variable.set("cdc_position", position.isoformat())  # expect: DJ041
