"""The same task with the official operator and with ours, in each mode (parity test): Databricks, Athena."""

from __future__ import annotations

import pendulum
from airflow.providers.amazon.aws.operators import athena as official_athena
from airflow.providers.databricks.operators import databricks as official
from airflow.sdk import DAG

from durable_jobs.operators import aws as durable_aws
from durable_jobs.operators import databricks as durable

MODES = [{}, {"deferrable": True}, {"wait_for_termination": False}]
DAGS = {}
for flavour, module in (("official", official), ("durable", durable)):
    for number, mode in enumerate(MODES):
        dag_id = f"parity_{flavour}_{number}"
        with DAG(dag_id, schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), catchup=False) as dag:
            module.DatabricksSubmitRunOperator(
                task_id="run", tasks=[{"task_key": "t", "notebook_task": {"notebook_path": "/Shared/p"}}],
                polling_period_seconds=0.2, **mode,
            )
        DAGS[(flavour, str(sorted(mode.items())))] = dag
        globals()[dag_id] = dag

# Amazon Athena: the same query with the official operator and ours, synchronous and deferrable (moto).
ATHENA_MODES = [{}, {"deferrable": True}]
ATHENA_DAGS = {}
for flavour, module in (("official", official_athena), ("durable", durable_aws)):
    for number, mode in enumerate(ATHENA_MODES):
        dag_id = f"parity_athena_{flavour}_{number}"
        with DAG(dag_id, schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), catchup=False) as dag:
            module.AthenaOperator(
                task_id="run", query="SELECT day FROM sales WHERE day = DATE '{{ ds }}'", database="analytics",
                output_location="s3://durable-athena-results/parity/", sleep_time=0.2, **mode,
            )
        ATHENA_DAGS[(flavour, str(sorted(mode.items())))] = dag
        globals()[dag_id] = dag
