"""DAGs for the Redshift Data API integration tests (Airflow runs them against moto behind our fault proxy).

``rsd()`` builds a one-task DAG around ``RedshiftDataOperator``. moto runs no SQL: a statement whose SQL
contains ``fail()`` ends FAILED (``durable_jobs.testing.emulators.aws_moto_redshift_data.FAIL_MARKER``).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator as OfficialRedshiftDataOperator
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))


def rsd(dag_id: str, *, operator=RedshiftDataOperator, **kwargs) -> DAG:
    args = dict(cluster_identifier="durable-cluster", database="dev", db_user="airflow",
                sql="SELECT * FROM sales WHERE day = '{{ ds }}'", poll_interval=0.2)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


rsd_sync = rsd("aws_rsd_sync")
rsd_deferrable = rsd("aws_rsd_deferrable", deferrable=True)
rsd_batch = rsd("aws_rsd_batch", sql=["DELETE FROM t", "INSERT INTO t SELECT '{{ ds }}'"], return_sql_result=True,
                deferrable=True)
rsd_session = rsd("aws_rsd_session", session_keep_alive_seconds=60)
rsd_no_wait = rsd("aws_rsd_no_wait", wait_for_completion=False)
rsd_fails = rsd("aws_rsd_fails", sql="SELECT fail()", retries=1)
rsd_fails_deferrable = rsd("aws_rsd_fails_deferrable", sql="SELECT fail()", retries=1, deferrable=True)
# botocore's own resends of a lost reply are cut to one, so that a try whose replies are all lost ends quickly
rsd_one_resend = rsd("aws_rsd_one_resend", botocore_config={"retries": {"total_max_attempts": 2}})
rsd_official = rsd("aws_rsd_official", operator=OfficialRedshiftDataOperator)
# the same dag_id twice: a try of the official operator, then the import switched to ours
rsd_official_switch = rsd("aws_rsd_switch", operator=OfficialRedshiftDataOperator)
rsd_switch = rsd("aws_rsd_switch")
