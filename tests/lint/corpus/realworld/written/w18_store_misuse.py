"""Written here (issue 18): task_state_store misuse - None written, a datetime written, a key
with dots, and a dataframe checkpointed."""

from __future__ import annotations

from datetime import datetime, timezone

import pandas as pd
from airflow.sdk import dag, task
from pendulum import datetime as pdt


@dag(start_date=pdt(2025, 1, 1), schedule="@daily", catchup=False)
def store_misuse():

    @task(retries=3)
    def transform(task_state_store=None):
        offset = task_state_store.get("offset", default=0)
        task_state_store.set("started_at", datetime.now(tz=timezone.utc))
        df = pd.read_parquet(f"s3://lake/in/{offset}.parquet")
        task_state_store.set("partial.frame", df)
        task_state_store.set("offset", None)

    transform()


store_misuse()
