"""Written here (issue 18): a deliberate long-job split done right - reschedule sensor, everything
downstream on the sensor, cleanup with trigger_rule=all_done on the submit. Only DJ051 (info)."""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.databricks.sensors.databricks import DatabricksSQLStatementsSensor
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
from pendulum import datetime

with DAG("long_backfill", start_date=datetime(2025, 1, 1), schedule="@weekly", catchup=False):
    submit = DatabricksSubmitRunOperator(
        task_id="submit",
        tasks=[{"task_key": "backfill", "notebook_task": {"notebook_path": "/Repos/etl/backfill"}}],
        wait_for_termination=False,
    )
    wait = DatabricksSQLStatementsSensor(
        task_id="wait", statement_id=submit.output, mode="reschedule", timeout=6 * 3600,
    )
    publish = EmptyOperator(task_id="publish")
    cleanup = EmptyOperator(task_id="cleanup", trigger_rule="all_done")
    submit >> wait >> publish
    submit >> cleanup
