"""Snowflake SQL API, each statement batch executed exactly once: the official ``SnowflakeSqlApiOperator``, one
import changed.

The key is the request's ``requestId`` (a UUID). A resend after a lost reply, or after a worker was killed
before the statement handles were saved, carries the same ``requestId`` with ``retry=true``: Snowflake
hands back the statement it already has instead of running the DELETE and INSERT a second time. A batch
that genuinely fails is retried under a new ``requestId``.

Runs against the loopback SQL API emulator of ``durable-jobs demo``; point ``snowflake_default`` at your
account (key pair, OAuth or a programmatic access token) to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator

with DAG(
    "example_snowflake_sql_api",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "snowflake"],
) as dag:
    SnowflakeSqlApiOperator(
        task_id="load_sales_daily",
        sql=(
            "BEGIN; "
            "DELETE FROM sales_daily WHERE day = '{{ ds }}'; "
            "INSERT INTO sales_daily SELECT day, count(*) FROM orders WHERE day = '{{ ds }}' GROUP BY day; "
            "COMMIT"
        ),
        statement_count=4,
        deferrable=True,
        poll_interval=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
