"""DAGs for test_fault_hygiene: connections with unmistakable secrets, and a 5 MB request parameter.

The parameter is made when the template renders (``{{ 'x' * 5242880 }}``), so this file (parsed by
every run's DAG-bag sync) stays small. Self-contained: DAG files must not import each other.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.athena import AthenaOperator
from durable_jobs.providers.amazon.aws.operators.batch import BatchOperator
from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
TASKS = [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl"}}]
HUGE_TASKS = [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl",
                                                      "base_parameters": {"blob": "{{ 'x' * 5242880 }}"}}}]
DBX = dict(databricks_conn_id="dbx_hygiene", retries=0, polling_period_seconds=0.2, databricks_retry_limit=2,
           databricks_retry_delay=0.01)
AWS = dict(aws_conn_id="aws_hygiene", retries=0)


def _dag(dag_id: str, operator, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **kwargs)
    return dag


hyg_dbx_sync = _dag("hyg_dbx_sync", DatabricksSubmitRunOperator, tasks=TASKS, **DBX)
hyg_dbx_deferrable = _dag("hyg_dbx_deferrable", DatabricksSubmitRunOperator, tasks=TASKS, deferrable=True, **DBX)
hyg_dbx_auth = _dag("hyg_dbx_auth", DatabricksSubmitRunOperator, tasks=TASKS, **DBX)
hyg_dbx_outage_deferrable = _dag("hyg_dbx_outage_deferrable", DatabricksSubmitRunOperator, tasks=TASKS,
                                 deferrable=True, **DBX)
hyg_huge_fails = _dag("hyg_huge_fails", DatabricksSubmitRunOperator, tasks=HUGE_TASKS, **DBX)
hyg_huge_outage = _dag("hyg_huge_outage", DatabricksSubmitRunOperator, tasks=HUGE_TASKS, **DBX)

hyg_batch_sync = _dag("hyg_batch_sync", BatchOperator, job_name="hygiene", job_queue="durable-queue",
                      job_definition="durable-job-def", poll_interval=0.2, **AWS)
hyg_batch_deferrable = _dag("hyg_batch_deferrable", BatchOperator, job_name="hygiene", job_queue="durable-queue",
                            job_definition="durable-job-def", poll_interval=0.2, deferrable=True, **AWS)
hyg_athena_auth = _dag("hyg_athena_auth", AthenaOperator, query="SELECT 1", database="analytics",
                       workgroup="durable-athena", sleep_time=0.2, **AWS)
