"""How ``asset_state_store`` reaches a task on Airflow 3.3.2, run by tests/docs/test_snippets.py.

The specification says: declare it as a keyword argument and do not combine it with
``**context``. On 3.3.2 both ways of getting it work; combining them does not raise either,
but the store then arrives only in the named argument - ``context["asset_state_store"]`` is
missing from ``**context`` - which is the confusion the lint's DJ085 warns about.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pendulum
from airflow.sdk import DAG, Asset, task

INVENTORY = Asset(name="docs/inventory", uri="s3://warehouse/docs/inventory")


# [START keyword]
@task(outlets=[INVENTORY])
def by_keyword(asset_state_store=None) -> str:  # what the specification recommends
    store = asset_state_store[INVENTORY]
    now = datetime.now(tz=timezone.utc).isoformat()  # timezone-aware, never datetime.utcnow()
    store.set("last_loaded_at", now)
    return now
# [END keyword]


# [START context]
@task(inlets=[INVENTORY])
def by_context(**context) -> str:  # also works on 3.3.2: it is a context key too
    store = context["asset_state_store"][INVENTORY]
    return store.get("last_loaded_at")
# [END context]


# [START combined]
@task(inlets=[INVENTORY])
def combined(asset_state_store=None, **context) -> bool:  # works, but confusing (lint: DJ085)
    return "asset_state_store" in context  # False: the named argument took it out of **context
# [END combined]


with DAG(
    dag_id="docs_asset_state_store_injection",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "docs"],
) as dag:
    by_keyword() >> by_context() >> combined()
