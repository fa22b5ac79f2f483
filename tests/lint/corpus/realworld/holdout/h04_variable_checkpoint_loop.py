"""Hold-out: the seed's per-retry resume pattern on a Variable - the offset is checkpointed after
every batch so that a retry continues, under a key named after the DAG."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime

KEY = "orders_backfill_offset"


def load_batch(offset: int) -> int:
    return 0


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def orders_backfill():

    @task(retries=5)
    def backfill():
        offset = int(Variable.get(KEY, default_var=0))
        while True:
            loaded = load_batch(offset)
            if loaded == 0:
                break
            offset += loaded
            Variable.set(KEY, offset)

    backfill()


orders_backfill()
