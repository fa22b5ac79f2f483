"""Every ``task_state_store`` call of the specification's section 3, run by tests/docs/test_snippets.py.

The test then reads the rows Airflow wrote and checks each key's expiry: the configured
default, a per-key ``retention``, and ``NEVER_EXPIRE`` (no expiry at all).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import NEVER_EXPIRE, dag, task


@dag(
    dag_id="docs_task_state_store_api",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    schedule=None,
    catchup=False,
    tags=["durable-jobs", "docs"],
)
def task_state_store_api():
    @task
    def write_keys(**context) -> None:
        # [START api]
        task_state_store = context["task_state_store"]

        cursor = task_state_store.get("last_cursor", default=0)  # a JSON value, or the default
        task_state_store.set("last_cursor", cursor + 100)  # expires after [state_store] default_retention_days
        task_state_store.set("batch", {"ids": [1, 2, 3]}, retention=timedelta(days=7))  # per-key TTL
        task_state_store.set("spark_job_id", "app-20260101", retention=NEVER_EXPIRE)  # never expires
        task_state_store.set("scratch", True)
        task_state_store.delete("scratch")  # removes one key
        task_state_store.delete("no_such_key")  # deleting a missing key is a no-op
        # [END api]
        assert task_state_store.get("last_cursor") == 100
        assert task_state_store.get("scratch") is None

        # [START none]
        try:
            task_state_store.set("job_id", None)  # None is not a value: delete() the key instead
        except ValueError as err:
            print(f"rejected: {err}")  # Cannot set value as None
        # [END none]
        else:
            raise AssertionError("task_state_store accepted None")

    @task
    def clear_everything(**context) -> None:
        task_state_store = context["task_state_store"]
        task_state_store.set("a", 1)
        task_state_store.set("b", [1, 2])
        # [START clear]
        task_state_store.clear()  # every key of THIS task instance (this map index only)
        # [END clear]
        assert task_state_store.get("a") is None and task_state_store.get("b") is None

    write_keys() >> clear_everything()


dag = task_state_store_api()
