"""DAGs for the BigQuery integration tests (run through Airflow against the BigQuery jobs emulator).

The emulator fails a job whose configuration contains the word ``fail``.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.google.cloud.operators.bigquery import (
    BigQueryInsertJobOperator as OfficialBigQueryInsertJobOperator,
)
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
QUERY = {"query": {"query": "INSERT INTO sales.daily SELECT * FROM sales.staging WHERE day = '{{ ds }}'",
                   "useLegacySql": False}}


def insert_job(dag_id: str, *, operator=BigQueryInsertJobOperator, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        args = dict(configuration=QUERY, location="US", poll_interval=0.2)
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


bq_sync = insert_job("bq_sync")
bq_deferrable = insert_job("bq_deferrable", deferrable=True)
bq_prefix = insert_job("bq_prefix", job_id="sales_{{ ds_nodash }}")
bq_bad_prefix = insert_job("bq_bad_prefix", job_id="sales.{{ ds }}", retries=0)
bq_fails = insert_job("bq_fails", configuration={"query": {"query": "SELECT fail", "useLegacySql": False}},
                      retries=1)
bq_fails_deferrable = insert_job("bq_fails_deferrable", retries=1, deferrable=True,
                                 configuration={"query": {"query": "SELECT fail", "useLegacySql": False}})
bq_dry_run = insert_job("bq_dry_run", configuration={**QUERY, "dryRun": True})
bq_keep = insert_job("bq_keep", force_rerun=False)
bq_official = insert_job("bq_official", operator=OfficialBigQueryInsertJobOperator)
bq_official_deferrable = insert_job("bq_official_deferrable", operator=OfficialBigQueryInsertJobOperator,
                                    deferrable=True)
