"""Run a notebook, then a Python file, on Databricks, each exactly once: ``DatabricksNotebookOperator`` and
``DatabricksTaskOperator`` with the import changed.

The official operators send ``runs/submit`` without an ``idempotency_token``: a reply lost after Databricks
created the run (or a worker killed right then) costs a second run on the retry. Ours send the epoch's key
as the token and keep the run id in the task state store, so a retry reconnects to the run it already has,
on the synchronous and the deferrable path. Inside a ``DatabricksWorkflowTaskGroup`` they behave as upstream
(the group's launch task submits the workflow run).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators.databricks import DatabricksNotebookOperator, DatabricksTaskOperator

with DAG(
    dag_id="example_databricks_notebook",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "databricks"],
) as dag:
    prepare = DatabricksNotebookOperator(
        task_id="prepare_orders",
        notebook_path="/Shared/prepare_orders",
        source="WORKSPACE",
        notebook_params={"run_date": "{{ ds }}"},
        existing_cluster_id="0101-120000-etl",
        deferrable=True,
        retries=2,
        retry_delay=timedelta(minutes=2),
    )
    publish = DatabricksTaskOperator(
        task_id="publish_orders",
        task_config={"spark_python_task": {"python_file": "dbfs:/jobs/publish.py", "parameters": ["{{ ds }}"]}},
        existing_cluster_id="0101-120000-etl",
        retries=2,
        retry_delay=timedelta(minutes=2),
    )
    prepare >> publish
