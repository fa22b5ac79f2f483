"""DAGs for DatabricksSQLStatementsOperator (ours and the official one) against the Databricks emulator."""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.databricks.operators import databricks as official
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators import databricks as ours

START = pendulum.datetime(2026, 1, 1, tz="UTC")
FAST = dict(polling_period_seconds=0.2, databricks_retry_limit=2, databricks_retry_delay=0.01,
            retries=2, retry_delay=timedelta(0))
SQL = dict(statement="MERGE INTO sales.daily t USING staging.daily s ON t.day = s.day "
                     "WHEN NOT MATCHED THEN INSERT *",
           warehouse_id="wh-1", catalog="main", schema="sales", query_tags={"team": "{{ dag.dag_id }}"})


def build(dag_id: str, operator: type, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**FAST, **SQL, **kwargs})
    return dag


sql_sync = build("dj_sql_sync", ours.DatabricksSQLStatementsOperator)
sql_deferrable = build("dj_sql_deferrable", ours.DatabricksSQLStatementsOperator, deferrable=True)
sql_timeout = build("dj_sql_timeout", ours.DatabricksSQLStatementsOperator, timeout=0.6, retries=0)
official_sql_sync = build("dj_official_sql_sync", official.DatabricksSQLStatementsOperator)
official_sql_deferrable = build("dj_official_sql_deferrable", official.DatabricksSQLStatementsOperator,
                                deferrable=True)
