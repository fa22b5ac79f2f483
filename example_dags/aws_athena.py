"""Amazon Athena, each query started exactly once: the official ``AthenaOperator``, one import changed.

The key goes into StartQueryExecution's ``ClientRequestToken``: Athena returns the query already
started under a token it has seen, so a lost reply or a worker killed before the query id was saved
is recovered by sending the same request under the same token. Athena cannot look a query up by
token, so there is nothing to find: the retry resends. A query that genuinely fails is retried with
a new token, hence a new query.

Runs against the loopback AWS of ``durable-jobs demo``; point ``aws_default`` at your account to run
it for real (the ``analytics`` database and the result bucket must then exist).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.athena import AthenaOperator

with DAG(
    "example_aws_athena",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    AthenaOperator(
        task_id="nightly_report",
        query="SELECT day, count(*) AS orders FROM sales WHERE day = DATE '{{ ds }}' GROUP BY day",
        database="analytics",
        output_location="s3://durable-athena-results/reports/",
        deferrable=True,
        sleep_time=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
