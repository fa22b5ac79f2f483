"""Snowflake DAGs for the compatibility subset, run against the SQL API emulator (routed in-process by the
``snowflake_emulator`` fixture); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3 alike."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeNotebookOperator, SnowflakeSqlApiOperator

SQL = "INSERT INTO compat_events SELECT 1"


class SqlApi(_RecordDeferrals, SnowflakeSqlApiOperator):
    pass


class Notebook(_RecordDeferrals, SnowflakeNotebookOperator):
    pass


with _dag("compat_snowflake_sync") as sync:
    SqlApi(task_id="run", sql=SQL, statement_count=1, poll_interval=0.2, retries=1, retry_delay=timedelta(0))

with _dag("compat_snowflake_deferrable") as deferrable:
    SqlApi(task_id="run", sql=SQL, statement_count=1, poll_interval=0.2, retries=1, retry_delay=timedelta(0),
           deferrable=True)

with _dag("compat_snowflake_notebook_sync") as notebook_sync:
    Notebook(task_id="run", notebook="COMPAT.PUBLIC.NB", poll_interval=0.2, retries=1, retry_delay=timedelta(0))

with _dag("compat_snowflake_notebook_deferrable") as notebook_deferrable:
    Notebook(task_id="run", notebook="COMPAT.PUBLIC.NB", poll_interval=0.2, retries=1, retry_delay=timedelta(0),
             deferrable=True)
