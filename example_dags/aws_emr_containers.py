"""EMR on EKS, each job run started exactly once: the official ``EmrContainerOperator``, one import changed.

The key goes into StartJobRun's ``clientToken``, which EMR on EKS keeps on the run (``JobRun.clientToken``):
a retry after a lost reply or a worker killed before the run id was saved lists the virtual cluster's runs
and finds the one started under the key, instead of starting a second. A run that fails fails the task as
upstream ("EMR Containers job failed. Final state is FAILED ..."), and the retry starts a new run under a
new key. Your own ``client_request_token`` is kept as the token's prefix (``<token>-<key>``).
``cancel_on_kill=True`` cancels the run when a *user* stops the task, not when the infrastructure restarts a
worker or a triggerer.

The virtual cluster id comes from the Airflow Variable ``emr_containers_virtual_cluster_id``
(``durable-jobs demo`` sets it for its loopback AWS); point ``aws_default`` at your account to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator

with DAG(
    "example_aws_emr_containers",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    EmrContainerOperator(
        task_id="nightly_spark_on_eks",
        name="nightly-spark-on-eks",
        virtual_cluster_id="{{ var.value.emr_containers_virtual_cluster_id }}",
        execution_role_arn="arn:aws:iam::123456789012:role/durable-jobs-role",
        release_label="emr-7.0.0-latest",
        job_driver={"sparkSubmitJobDriver": {"entryPoint": "s3://durable-bucket/scripts/etl.py",
                                             "entryPointArguments": ["{{ ds }}"]}},
        cancel_on_kill=True,
        deferrable=True,
        poll_interval=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
