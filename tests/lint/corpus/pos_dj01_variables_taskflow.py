"""Variables as per-run state in TaskFlow tasks, through an alias and through helpers."""

from __future__ import annotations

from airflow.models import Variable as V
from airflow.sdk import dag, task
from pendulum import datetime

BATCH_SIZE = int(V.get("orders_batch_size", default_var=100))   # module-level configuration


def fetch(endpoint: str, cursor: int, limit: int) -> list[dict]:
    return []


def _save_cursor(cursor: int) -> None:
    V.set("orders_cursor", cursor)  # written back once per run: carried across runs  # expect: DJ041


def _bump_watermark(ts: str) -> None:
    V.set("orders_last_processed_at", ts)  # expect: DJ041


@dag(start_date=datetime(2025, 1, 1), schedule="@hourly")
def orders_sync():

    @task(retries=2)
    def sync(**context):
        endpoint = V.get("orders_endpoint")                  # configuration read: not reported
        cursor = int(V.get("orders_cursor", default_var=0))
        for row in fetch(endpoint, cursor, BATCH_SIZE):
            cursor = row["id"]
        _save_cursor(cursor)
        _bump_watermark(context["data_interval_end"].isoformat())

    @task
    def dedupe(ids: list[int]):
        def remember(seen: list[int]) -> None:
            V.set("orders_seen_ids", seen, serialize_json=True)  # expect: DJ011
        remember(sorted(set(ids)))

    @task
    def mark_synced(**context):
        V.set("orders_synced_marker", context["ts"])  # expect: DJ041

    sync() >> dedupe([1, 2]) >> mark_synced()


orders_sync()
