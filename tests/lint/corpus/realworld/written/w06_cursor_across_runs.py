"""Written here (issue 18): an API cursor read at the start of every run and written back at
the end so that the next run continues from it - state carried across runs."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime


def fetch_page(cursor: str | None) -> tuple[list[dict], str | None]:
    return [], None


@dag(start_date=datetime(2025, 1, 1), schedule="@hourly", catchup=False)
def events_ingest():

    @task(retries=2)
    def ingest():
        cursor = Variable.get("events_api_cursor", default_var=None)
        rows: list[dict] = []
        while True:
            page, cursor = fetch_page(cursor)
            rows.extend(page)
            if cursor is None:
                break
        Variable.set("events_api_cursor", cursor or "")
        return len(rows)

    ingest()


events_ingest()
