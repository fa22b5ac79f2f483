"""Amazon Redshift Data API DAGs for the compatibility subset, run against moto behind our fault proxy
(``durable_jobs.testing.emulators.aws_env``); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3 alike."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

FAST = {"retries": 1, "retry_delay": timedelta(0)}


class RedshiftData(_RecordDeferrals, RedshiftDataOperator):
    pass


def _rsd(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        RedshiftData(task_id="run", cluster_identifier="durable-cluster", database="dev", db_user="airflow",
                     sql="SELECT 1", poll_interval=0.2, **FAST, **kwargs)
    return dag


rsd_sync = _rsd("compat_aws_redshift_data_sync")
rsd_deferrable = _rsd("compat_aws_redshift_data_deferrable", deferrable=True)
