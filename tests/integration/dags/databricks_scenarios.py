"""DAGs for the Databricks integration tests (run through Airflow against the emulator).

``build()`` also lets a test construct an *edited* copy of a DAG (same dag_id, different
request), the way a redeployed DAG file would be parsed between two tries.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG
from tenacity import stop_after_attempt, wait_fixed

from durable_jobs.providers.databricks.operators.databricks import (
    DatabricksRunNowOperator,
    DatabricksSubmitRunOperator,
)

START = pendulum.datetime(2026, 1, 1, tz="UTC")
FAST = dict(
    polling_period_seconds=0.2, databricks_retry_limit=2, databricks_retry_delay=0.01,
    # The hook's default backoff waits 1 s, 2 s, ...; tests fail fast with two quick attempts.
    databricks_retry_args={"stop": stop_after_attempt(2), "wait": wait_fixed(0.01)},
    retries=2, retry_delay=timedelta(0),
)


def notebook(path: str = "/Shared/etl") -> list[dict]:
    return [{"task_key": "etl", "notebook_task": {"notebook_path": path}}]


def build(dag_id: str, *, operator=DatabricksSubmitRunOperator, default_args=None, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False, default_args=default_args or {}) as dag:
        args = {**FAST, **kwargs}
        if args.get("deferrable"):
            # tenacity objects cannot cross to the triggerer: deferrable operators refuse them (as the
            # official trigger does); the hook's own backoff from databricks_retry_delay stays fast.
            args.pop("databricks_retry_args")
        if operator is DatabricksSubmitRunOperator:
            args.setdefault("tasks", notebook())
        operator(task_id="run", **args)
    return dag


submit_sync = build("dj_submit_sync")
submit_deferrable = build("dj_submit_deferrable", deferrable=True)
submit_nowait = build("dj_submit_nowait", wait_for_termination=False)
submit_templated = build("dj_submit_templated", run_name="nightly (try {{ ti.try_number }})")
submit_not_durable = build("dj_submit_not_durable", default_args={"durable": False})
submit_keep_on_clear = build("dj_submit_keep_on_clear", fresh_on_clear=False)
submit_user_token = build("dj_submit_user_token", idempotency_token="nightly-{{ ds_nodash }}")
run_now_sync = build("dj_run_now_sync", operator=DatabricksRunNowOperator, job_id=501, cancel_previous_runs=True)
run_now_sync_repair = build(
    "dj_run_now_sync_repair", operator=DatabricksRunNowOperator, job_id=501, repair_run=True,
)
run_now_deferrable_repair = build(
    "dj_run_now_deferrable_repair", operator=DatabricksRunNowOperator, job_id=501, deferrable=True,
    repair_run=True,
)

with DAG("dj_submit_mapped", schedule=None, start_date=START, catchup=False) as submit_mapped:
    DatabricksSubmitRunOperator.partial(task_id="run", **FAST).expand(
        tasks=[notebook("/Shared/a"), notebook("/Shared/b"), notebook("/Shared/c")]
    )
