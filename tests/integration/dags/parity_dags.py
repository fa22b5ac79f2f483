"""The same task with the official operator and with ours, in each mode (parity test): Databricks, Athena,
Snowflake."""

from __future__ import annotations

import pendulum
from airflow.providers.amazon.aws.operators import athena as official_athena
from airflow.providers.databricks.operators import databricks as official
from airflow.providers.snowflake.operators import snowflake as official_snowflake
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators import athena as durable_athena
from durable_jobs.providers.databricks.operators import databricks as durable
from durable_jobs.providers.snowflake.operators import snowflake as durable_snowflake

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
for flavour, module in (("official", official_athena), ("durable", durable_athena)):
    for number, mode in enumerate(ATHENA_MODES):
        dag_id = f"parity_athena_{flavour}_{number}"
        with DAG(dag_id, schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), catchup=False) as dag:
            module.AthenaOperator(
                task_id="run", query="SELECT day FROM sales WHERE day = DATE '{{ ds }}'", database="analytics",
                output_location="s3://durable-athena-results/parity/", sleep_time=0.2, **mode,
            )
        ATHENA_DAGS[(flavour, str(sorted(mode.items())))] = dag
        globals()[dag_id] = dag

# Snowflake: the same statement batch (and notebook) with the official operators and ours (SQL API emulator).
SNOWFLAKE_MODES = [{}, {"deferrable": True}]
SNOWFLAKE_DAGS = {}
for flavour, module in (("official", official_snowflake), ("durable", durable_snowflake)):
    for number, mode in enumerate(SNOWFLAKE_MODES):
        dag_id = f"parity_snowflake_{flavour}_{number}"
        with DAG(dag_id, schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), catchup=False) as dag:
            module.SnowflakeSqlApiOperator(
                task_id="run", sql="DELETE FROM t WHERE day = '{{ ds }}'; INSERT INTO t VALUES ('{{ ds }}')",
                statement_count=2, poll_interval=0.2, **mode,
            )
            module.SnowflakeNotebookOperator(
                task_id="notebook", notebook="DB.PUBLIC.NB", notebook_parameters=["{{ ds }}"], poll_interval=0.2,
                **mode,
            )
        SNOWFLAKE_DAGS[(flavour, str(sorted(mode.items())))] = dag
        globals()[dag_id] = dag
