"""BigQuery DAGs for the compatibility subset, run against the BigQuery jobs emulator (routed in-process by
``BIGQUERY_EMULATOR_HOST`` and an anonymous connection); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator

CONFIGURATION = {"query": {"query": "INSERT INTO compat.events SELECT 1", "useLegacySql": False}}


class InsertJob(_RecordDeferrals, BigQueryInsertJobOperator):
    pass


with _dag("compat_bigquery_sync") as sync:
    InsertJob(task_id="run", configuration=CONFIGURATION, location="US", poll_interval=0.2, retries=1,
              retry_delay=timedelta(0))

with _dag("compat_bigquery_deferrable") as deferrable:
    InsertJob(task_id="run", configuration=CONFIGURATION, location="US", poll_interval=0.2, retries=1,
              retry_delay=timedelta(0), deferrable=True)
