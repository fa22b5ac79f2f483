"""Amazon EMR on EKS DAGs for the compatibility subset, run against moto behind our fault proxy
(``durable_jobs.testing.emulators.aws_env``); the virtual cluster id comes from the Variable the ``aws`` fixture sets
(``AIRFLOW_VAR_DURABLE_EMR_VIRTUAL_CLUSTER_ID``); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3 alike."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator

FAST = {"retries": 1, "retry_delay": timedelta(0)}


class EmrContainer(_RecordDeferrals, EmrContainerOperator):
    pass


def _emr(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        EmrContainer(task_id="run", name=dag_id, virtual_cluster_id="{{ var.value.durable_emr_virtual_cluster_id }}",
                     execution_role_arn="arn:aws:iam::123456789012:role/durable-jobs-role",
                     release_label="emr-7.0.0-latest",
                     job_driver={"sparkSubmitJobDriver": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}},
                     poll_interval=0.2, **FAST, **kwargs)
    return dag


emr_containers_sync = _emr("compat_aws_emr_containers_sync")
emr_containers_deferrable = _emr("compat_aws_emr_containers_deferrable", deferrable=True)
