"""The Snowflake demo's contrast run: the *official* ``SnowflakeSqlApiOperator`` with the example's SQL
(``example_dags/snowflake_sql_api.py``). Linked into the demo's DAGs folder only."""

from __future__ import annotations

import pendulum
from airflow.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator
from airflow.sdk import DAG

from durable_jobs.example_dags.snowflake_sql_api import dag as example

task = example.task_dict["load_sales_daily"]

with DAG("example_snowflake_sql_api_official", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
         catchup=False) as official_dag:
    SnowflakeSqlApiOperator(task_id="load_sales_daily", sql=task.sql, statement_count=task.statement_count,
                            deferrable=True, retries=task.retries, poll_interval=30)
