"""Turning crash recovery off for one task, run by tests/docs/test_snippets.py.

(For a whole DAG, ``default_args={"durable": False}``: example_dags/databricks_not_durable.py.)
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="docs_durable_off",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "docs"],
) as dag:
    # [START durable_off]
    DatabricksSubmitRunOperator(
        task_id="smoke_test",
        tasks=[{"task_key": "smoke", "notebook_task": {"notebook_path": "/Shared/smoke_test"}}],
        durable=False,  # no task_state_store traffic at all: every try submits a new run
    )
    # [END durable_off]
