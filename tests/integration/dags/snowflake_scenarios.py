"""DAGs for the Snowflake integration tests (run through Airflow against the SQL API emulator).

``sql_api()`` builds one-task DAGs; the emulator fails a statement that contains the word ``fail``.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator as OfficialSqlApiOperator
from airflow.sdk import DAG

from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeNotebookOperator, SnowflakeSqlApiOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
INSERT = "INSERT INTO sales_daily SELECT * FROM sales_staging WHERE day = '{{ ds }}'"
BATCH = "BEGIN; DELETE FROM sales_daily WHERE day = '{{ ds }}'; " + INSERT + "; COMMIT"


def _dag(dag_id: str, operator, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **kwargs})
    return dag


def sql_api(dag_id: str, *, operator=SnowflakeSqlApiOperator, **kwargs) -> DAG:
    args = dict(sql=INSERT, statement_count=1, poll_interval=0.2)
    return _dag(dag_id, operator, **{**args, **kwargs})


sf_sync = sql_api("sf_sync")
sf_deferrable = sql_api("sf_deferrable", deferrable=True)
sf_batch = sql_api("sf_batch", sql=BATCH, statement_count=4)
sf_batch_deferrable = sql_api("sf_batch_deferrable", sql=BATCH, statement_count=4, deferrable=True)
sf_fails = sql_api("sf_fails", sql="SELECT fail FROM nowhere", retries=1)
sf_fails_deferrable = sql_api("sf_fails_deferrable", sql="SELECT fail FROM nowhere", retries=1, deferrable=True)
sf_official = sql_api("sf_official", operator=OfficialSqlApiOperator)
sf_official_deferrable = sql_api("sf_official_deferrable", operator=OfficialSqlApiOperator, deferrable=True)
sf_keypair = sql_api("sf_keypair", snowflake_conn_id="snowflake_keypair")
sf_oauth = sql_api("sf_oauth", snowflake_conn_id="snowflake_oauth", deferrable=True)
with DAG("sf_notebook", schedule=None, start_date=START, catchup=False) as sf_notebook:
    SnowflakeNotebookOperator(task_id="run", notebook="ANALYTICS.PUBLIC.DAILY_REPORT",
                              notebook_parameters=["{{ ds }}", "it's"], poll_interval=0.2, **RETRIES)
