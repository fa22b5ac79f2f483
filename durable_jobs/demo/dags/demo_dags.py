"""The demo's DAGs: each scenario twice, once with the official operator and once with ours.

Only the import differs between a pair; every argument is the same.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.databricks.operators import databricks as official
from airflow.sdk import DAG

from durable_jobs.providers.databricks.operators import databricks as durable

START = pendulum.datetime(2026, 1, 1, tz="UTC")
ARGS = dict(
    tasks=[{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/nightly_etl"}}],
    polling_period_seconds=0.2, databricks_retry_limit=2, databricks_retry_delay=0.01,
    retries=2, retry_delay=timedelta(0),
)
SCENARIOS = {
    "deferrable": dict(deferrable=True, wait_for_termination=True),
    "lost_reply": dict(),
    "clear": dict(),
}
DAGS = {}
for scenario, extra in SCENARIOS.items():
    for flavour, module in (("official", official), ("durable", durable)):
        dag_id = f"demo_{scenario}_{flavour}"
        with DAG(dag_id, schedule=None, start_date=START, catchup=False, tags=["durable-jobs-demo"]) as dag:
            module.DatabricksSubmitRunOperator(task_id="nightly_etl", **ARGS, **extra)
        DAGS[dag_id] = dag
        globals()[dag_id] = dag

# DatabricksNotebookOperator: the lost reply again, with the notebook operator's own arguments.
for flavour, module in (("official", official), ("durable", durable)):
    dag_id = f"demo_notebook_{flavour}"
    with DAG(dag_id, schedule=None, start_date=START, catchup=False, tags=["durable-jobs-demo"]) as dag:
        module.DatabricksNotebookOperator(
            task_id="nightly_etl", notebook_path="/Shared/nightly_etl", source="WORKSPACE",
            existing_cluster_id="demo-cluster", polling_period_seconds=0.2, databricks_retry_limit=2,
            databricks_retry_delay=0.01, retries=2, retry_delay=timedelta(0),
        )
    DAGS[dag_id] = dag
    globals()[dag_id] = dag

# DatabricksTaskOperator: the lost reply again, one Python file as ``task_config``.
for flavour, module in (("official", official), ("durable", durable)):
    dag_id = f"demo_task_{flavour}"
    with DAG(dag_id, schedule=None, start_date=START, catchup=False, tags=["durable-jobs-demo"]) as dag:
        module.DatabricksTaskOperator(
            task_id="nightly_etl", task_config={"spark_python_task": {"python_file": "dbfs:/jobs/publish.py",
                                                                      "parameters": ["{{ run_id }}"]}},
            existing_cluster_id="demo-cluster", polling_period_seconds=0.2, databricks_retry_limit=2,
            databricks_retry_delay=0.01, retries=2, retry_delay=timedelta(0),
        )
    DAGS[dag_id] = dag
    globals()[dag_id] = dag

# DatabricksSQLStatementsOperator: status reads fail for a while; upstream's retry runs the SQL again.
for flavour, module in (("official", official), ("durable", durable)):
    dag_id = f"demo_sql_{flavour}"
    with DAG(dag_id, schedule=None, start_date=START, catchup=False, tags=["durable-jobs-demo"]) as dag:
        module.DatabricksSQLStatementsOperator(
            task_id="nightly_etl", statement="MERGE INTO sales.daily t USING staging.daily s ON t.day = s.day "
            "WHEN NOT MATCHED THEN INSERT *", warehouse_id="demo-warehouse", polling_period_seconds=0.2,
            databricks_retry_limit=2, databricks_retry_delay=0.01, retries=2, retry_delay=timedelta(0),
        )
    DAGS[dag_id] = dag
    globals()[dag_id] = dag
