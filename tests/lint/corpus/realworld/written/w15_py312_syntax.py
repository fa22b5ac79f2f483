"""Written here (issue 18): Python 3.12 syntax (a PEP 695 type alias and a PEP 701 f-string) in
an otherwise clean DAG; under Python 3.11 it cannot be parsed, which the lint must say."""

from __future__ import annotations

from airflow.sdk import dag, task
from pendulum import datetime

type Row = dict[str, str]


@dag(start_date=datetime(2025, 1, 1), schedule=None)
def modern_python():

    @task
    def greet(rows: list[Row]) -> str:
        return f"rows: {", ".join(r["id"] for r in rows)}"

    greet([])


modern_python()
