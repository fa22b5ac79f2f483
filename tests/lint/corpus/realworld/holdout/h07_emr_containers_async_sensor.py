"""Hold-out: an EMR on EKS job started without waiting, watched by astronomer-providers'
EmrContainerSensorAsync."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.emr import EmrContainerOperator
from airflow.sdk import DAG
from astronomer.providers.amazon.aws.sensors.emr import EmrContainerSensorAsync
from pendulum import datetime

with DAG("emr_eks_job", start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False):
    start = EmrContainerOperator(
        task_id="start",
        name="spark-pi",
        virtual_cluster_id="abc123",
        execution_role_arn="arn:aws:iam::1:role/emr",
        release_label="emr-7.0.0-latest",
        job_driver={"sparkSubmitJobDriver": {"entryPoint": "local:///pi.py"}},
        wait_for_completion=False,
    )
    watch = EmrContainerSensorAsync(task_id="watch", virtual_cluster_id="abc123", job_id=start.output)
    start >> watch
