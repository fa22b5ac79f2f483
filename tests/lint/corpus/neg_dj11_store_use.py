"""Near misses for DJ111-DJ113: each task keeps its own cursor, small values, a page token,
and an operator whose methods share one task instance's store."""

from __future__ import annotations

from airflow.sdk import BaseOperator, dag, task
from pendulum import datetime


class PagedExport(BaseOperator):
    def execute(self, context):
        context["task_state_store"].set("export_page", 1)
        return self.finish(context)

    def finish(self, context):
        return context["task_state_store"].get("export_page")

    def execute_complete(self, context, event=None):
        return context["task_state_store"].get("export_page")


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def store_use_ok():

    @task
    def first(**context):
        store = context["task_state_store"]
        cursor = store.get("cursor", default=0)
        store.set("cursor", cursor + 1)
        store.set("next_page_token", "abc")

    @task
    def second(**context):
        store = context["task_state_store"]
        cursor = store.get("cursor", default=0)
        store.set("cursor", cursor + 1)

    first() >> second()


store_use_ok()


@task
def manifest(**context):
    store = context["task_state_store"]
    store.set("config_hash", "9f2c")
    store.set("schema_version", 3)
