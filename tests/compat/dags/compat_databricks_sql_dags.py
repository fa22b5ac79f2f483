"""DatabricksSQLStatementsOperator DAGs for the compatibility subset (dag.test() on Airflow 2.11, 3.2, 3.3)."""

from __future__ import annotations

from datetime import datetime, timedelta

try:
    from airflow.sdk import DAG
except ImportError:  # Airflow 2.x
    from airflow import DAG

from compat_dags import _RecordDeferrals

from durable_jobs.providers.databricks.operators.databricks import DatabricksSQLStatementsOperator


class SqlStatements(_RecordDeferrals, DatabricksSQLStatementsOperator):
    pass


SQL = {"statement": "SELECT 1", "warehouse_id": "compat-warehouse", "polling_period_seconds": 0.2,
       "databricks_retry_limit": 1, "databricks_retry_delay": 0.1, "retries": 1, "retry_delay": timedelta(0)}


def _dag(dag_id: str) -> DAG:
    return DAG(dag_id, schedule=None, start_date=datetime(2025, 1, 1), catchup=False)


with _dag("compat_sql_sync") as sql_sync:
    SqlStatements(task_id="run", **SQL)

with _dag("compat_sql_deferrable") as sql_deferrable:
    SqlStatements(task_id="run", deferrable=True, **SQL)
