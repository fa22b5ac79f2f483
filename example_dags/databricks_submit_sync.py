"""One durable synchronous task: submit, poll and result in the worker, crash-safe end to end.

Choose this when no Triggerer is deployed and holding a worker slot for the run is acceptable
(seed section 6). A worker crash or eviction during polling reconnects to the same run on retry;
a crash between submit and checkpoint is recovered through the run's idempotency token.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="example_databricks_submit_sync",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "databricks"],
) as dag:
    DatabricksSubmitRunOperator(
        task_id="nightly_etl",
        tasks=[{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/nightly_etl"}}],
        run_name="nightly etl {{ ds }}",
        wait_for_termination=True,  # synchronous: holds the worker for the run, acceptable here
        durable=True,  # the default; the run id is checkpointed end to end
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
