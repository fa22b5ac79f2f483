"""Near misses for DJ011/DJ031/DJ041: Variables read as configuration, writes outside tasks."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime

SETTINGS = Variable.get("orders_settings", deserialize_json=True)   # module level: configuration


def seed_defaults() -> None:
    """Run by hand (python this_file.py), never by a task."""
    Variable.set("orders_settings", {"limit": 100}, serialize_json=True)
    Variable.set("orders_last_processed_at", "2026-01-01T00:00:00+00:00")


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def config_only():

    @task
    def extract():
        bucket = Variable.get("orders_bucket")
        if Variable.get("orders_backfill_enabled", default_var="false") == "true":
            return f"s3://{bucket}/backfill"
        return f"s3://{bucket}/daily"

    @task
    def load(path: str):
        job_queue = Variable.get("load_queue_id", default_var=None)   # read-only: configuration
        print(path, job_queue, SETTINGS)

    load(extract())


config_only()

if __name__ == "__main__":
    seed_defaults()
