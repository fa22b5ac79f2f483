"""Before (DJ111, DJ112, DJ113): task_state_store used for what the guide says not to -
passing data between tasks, holding a dataframe, holding a secret.
After: XCom (object-storage backend for large values); Variables / Connections for config.
"""

from __future__ import annotations

import pandas as pd
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def store_as_channel():

    @task
    def extract(**context):
        store = context["task_state_store"]
        df = pd.read_parquet("s3://bucket/orders.parquet")
        store.set("frame", df.to_dict())                  # DJ112: large payload
        store.set("api_key", context["params"]["key"])    # DJ113: a secret
        store.set("row_count", len(df))

    @task
    def load(**context):
        rows = context["task_state_store"].get("row_count")   # DJ111: another task's store
        print(rows)

    extract() >> load()


store_as_channel()
