"""State-store misuse: values, keys, timestamps, signatures and mapped tasks."""

from __future__ import annotations

import datetime as dt
import uuid

from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, Asset, get_current_context, task
from pendulum import datetime

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


def _checkpoint(store, cursor):
    store.set("cursor_at", dt.datetime.now(dt.timezone.utc))  # expect: DJ082
    store.set("cursor", cursor)


@task(retries=3)
def extract(**context):
    tss = context.get("task_state_store")
    _checkpoint(tss, 10)
    tss.set("seen", {1, 2, 3})  # expect: DJ082
    tss.set("request", {"id": uuid.uuid4(), "n": 1})  # expect: DJ082
    tss.set("orders.v2/cursor", 1)  # expect: DJ083
    tss.set("last_error", None)  # expect: DJ081
    return tss.get("cursor")


@task(inlets=[ORDERS], outlets=[ORDERS])
def load(**kwargs):
    store = kwargs["asset_state_store"][ORDERS]  # expect: DJ085
    loaded_at = dt.datetime.utcnow().isoformat()
    store.set("loaded_at", loaded_at)  # expect: DJ084


@task(outlets=[ORDERS])
def load_partition(partition_id: int, asset_state_store=None):
    accessor = asset_state_store[ORDERS]
    accessor.set(f"offset_{partition_id}", partition_id)
    accessor.set("last_partition", partition_id)  # expect: DJ087


def reprocess(day: str):
    store = get_current_context()["task_state_store"]
    store.clear()  # expect: DJ086


with DAG("store_misuse", start_date=datetime(2025, 1, 1), schedule="@daily"):
    days = PythonOperator.partial(task_id="reprocess", python_callable=reprocess).expand(
        op_args=[["2025-01-01"], ["2025-01-02"]]
    )
    extract() >> load() >> load_partition.expand(partition_id=[0, 1, 2]) >> days
