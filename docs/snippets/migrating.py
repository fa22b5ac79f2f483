"""Switching from the official operator, and keeping its behaviour where you want it.

Run by tests/docs/test_snippets.py against the Databricks emulator.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG

# [START import]
# from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
# [END import]

with DAG(
    dag_id="docs_migrating",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "docs"],
) as dag:
    # [START opt_out]
    DatabricksSubmitRunOperator(
        task_id="nightly_etl",
        tasks=[{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/nightly_etl"}}],
        retries=3,
        fresh_on_clear=False,  # a user's clear reconnects to the run, as the official operator does
        cancel_on_kill="always",  # any kill cancels the run, as the official operator does
    )
    # [END opt_out]
