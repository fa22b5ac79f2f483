"""Load a day of sales with SQL statements on a Databricks SQL warehouse: ``DatabricksSQLStatementsOperator``
with the import changed.

The official operator keeps nothing: a worker killed while the statement runs (or while it is deferred, or
right after it succeeded) runs the SQL again on the retry. Ours keep the statement id in the task state store
right after the POST, so the retry reconnects to the statement it already has, on the synchronous and the
deferrable path. One window stays open: the Statement Execution API has no idempotency field, so a worker
killed between Databricks accepting the POST and the id being stored runs the statement again. Write the
statements to be idempotent where that matters, as these are (``MERGE``, ``INSERT OVERWRITE``).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators.databricks import DatabricksSQLStatementsOperator

with DAG(
    dag_id="example_databricks_sql_statements",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "databricks"],
) as dag:
    stage = DatabricksSQLStatementsOperator(
        task_id="stage_sales",
        # upstream templates only databricks_conn_id and query_tags: the statement is sent as written
        statement="INSERT OVERWRITE staging.daily_sales SELECT * FROM raw.sales WHERE day = :day",
        parameters=[{"name": "day", "value": "2026-01-01", "type": "DATE"}],
        query_tags={"run_date": "{{ ds }}"},
        warehouse_id="1234567890abcdef",
        catalog="main",
        deferrable=True,
        retries=2,
        retry_delay=timedelta(minutes=2),
    )
    merge = DatabricksSQLStatementsOperator(
        task_id="merge_sales",
        statement="MERGE INTO sales.daily t USING staging.daily_sales s ON t.day = s.day AND t.sku = s.sku "
                  "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
        warehouse_id="1234567890abcdef",
        catalog="main",
        query_tags={"pipeline": "daily_sales"},
        retries=2,
        retry_delay=timedelta(minutes=2),
    )
    stage >> merge
