"""Amazon Redshift Data API, each statement run exactly once: the official ``RedshiftDataOperator``, one import
changed.

The key goes into ExecuteStatement's (and BatchExecuteStatement's) ``ClientToken``: the Data API answers a token
it has seen with the statement it already ran, so a lost reply or a worker killed before the statement id was
saved is recovered by sending the same request under the same token, and the load below is not run twice.
A statement that fails raises upstream's ``RedshiftDataQueryFailedError`` and the retry runs a new statement
under a new key. The return value is upstream's: the statement ids (here, the batch's two sub-statements).

Runs against the loopback AWS of ``durable-jobs demo``; point ``aws_default`` at your account to run it for
real (the cluster, database and user must then exist).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

with DAG(
    "example_aws_redshift_data",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    RedshiftDataOperator(
        task_id="nightly_load",
        cluster_identifier="durable-cluster",
        database="dev",
        db_user="airflow",
        sql=[
            "DELETE FROM sales_daily WHERE day = '{{ ds }}'",
            "INSERT INTO sales_daily SELECT '{{ ds }}', SUM(amount) FROM sales WHERE day = '{{ ds }}'",
        ],
        deferrable=True,
        poll_interval=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
