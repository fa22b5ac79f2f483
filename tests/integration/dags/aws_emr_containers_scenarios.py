"""DAGs for the EMR on EKS integration tests (Airflow runs them against moto behind our fault proxy).

``emr()`` builds a one-task DAG around ``EmrContainerOperator``. The virtual cluster is the ``aws`` fixture's
(Variable ``durable_emr_virtual_cluster_id``); a job driver whose entry point contains ``fail`` ends FAILED in
moto (``MOTO_GAPS["emr-containers-life-cycle"]``).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.amazon.aws.operators.emr import EmrContainerOperator as OfficialEmrContainerOperator
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator
from durable_jobs.testing.emulators.aws_env import EMR_RELEASE_LABEL, ROLE_ARN

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
CLUSTER = "{{ var.value.durable_emr_virtual_cluster_id }}"


def emr(dag_id: str, *, operator=EmrContainerOperator, entry: str = "s3://durable/etl.py", **kwargs) -> DAG:
    args = dict(name="durable-emr-eks", virtual_cluster_id=CLUSTER, execution_role_arn=ROLE_ARN,
                release_label=EMR_RELEASE_LABEL, poll_interval=0.2,
                job_driver={"sparkSubmitJobDriver": {"entryPoint": entry, "entryPointArguments": ["{{ ds }}"]}})
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


emr_sync = emr("aws_emr_eks_sync")
emr_deferrable = emr("aws_emr_eks_deferrable", deferrable=True)
emr_fails = emr("aws_emr_eks_fails", entry="s3://durable/fail.py", retries=1)
emr_fails_deferrable = emr("aws_emr_eks_fails_deferrable", entry="s3://durable/fail.py", retries=1, deferrable=True)
emr_no_wait = emr("aws_emr_eks_no_wait", wait_for_completion=False)
emr_user_token = emr("aws_emr_eks_user_token", client_request_token="nightly",
                     entry="s3://durable/fail.py", retries=1, tags={"team": "etl"})
emr_poll_limit = emr("aws_emr_eks_poll_limit", max_polling_attempts=2, retries=1)
emr_official = emr("aws_emr_eks_official", operator=OfficialEmrContainerOperator)
emr_official_token = emr("aws_emr_eks_official_token", operator=OfficialEmrContainerOperator,
                         client_request_token="nightly", entry="s3://durable/fail.py", retries=1)
