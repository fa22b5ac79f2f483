"""Hold-out: a pendulum DateTime written to the asset store (not JSON) and a float made from a
naive utcnow() (timestamp() reads it as local time)."""

from __future__ import annotations

from datetime import datetime

import pendulum
from airflow.sdk import Asset, dag, task

EVENTS = Asset(name="events", uri="s3://lake/events")


@dag(start_date=pendulum.datetime(2025, 1, 1), schedule="@daily", catchup=False)
def stamps():

    @task(outlets=[EVENTS])
    def load(asset_state_store=None):
        store = asset_state_store[EVENTS]
        store.set("loaded_at", pendulum.now("UTC"))
        store.set("loaded_epoch", datetime.utcnow().timestamp())

    load()


stamps()
