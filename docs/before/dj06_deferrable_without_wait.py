"""Before (DJ061): deferrable=True with wait_for_termination=False, carried over from an old
submit task when the split was merged. The task neither defers nor polls.
After: deferrable=True, wait_for_termination=True.
"""

from __future__ import annotations

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG
from pendulum import datetime

NOTEBOOK_PATH = "/Shared/nightly"

with DAG("nightly_deferrable", start_date=datetime(2025, 1, 1), schedule="@daily"):
    run_job = DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        deferrable=True,
        wait_for_termination=False,
    )
