"""Amazon SageMaker Processing, each job created exactly once: the official ``SageMakerProcessingOperator``, one
import changed.

The job name is the key (names are unique per account and Region): the job below is named
``features-<date>-<key>``. A lost reply or a worker killed before the job was recorded is recovered by
``DescribeProcessingJob`` of that exact name, so the retry reconnects instead of processing the day again; a job
that fails raises upstream's error and the retry starts under a new key. ``action_if_job_exists`` keeps upstream's
meaning for a name that is not ours. The return value is upstream's: ``{"Processing": <DescribeProcessingJob>}``.

Runs against the loopback AWS of ``durable-jobs demo``; point ``aws_default`` at your account to run it for real
(the role, image and bucket must then exist).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.sagemaker import SageMakerProcessingOperator

with DAG(
    "example_aws_sagemaker_processing",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    SageMakerProcessingOperator(
        task_id="nightly_features",
        config={
            "ProcessingJobName": "features-{{ ds_nodash }}",
            "RoleArn": "arn:aws:iam::123456789012:role/sagemaker",
            "AppSpecification": {
                "ImageUri": "123456789012.dkr.ecr.us-east-1.amazonaws.com/features:1",
                "ContainerArguments": ["--date", "{{ ds }}"],
            },
            "ProcessingInputs": [{"InputName": "raw", "S3Input": {
                "S3Uri": "s3://durable-data/raw/", "S3DataType": "S3Prefix",
                "LocalPath": "/opt/ml/processing/input"}}],
            "ProcessingOutputConfig": {"Outputs": [{"OutputName": "features", "S3Output": {
                "S3Uri": "s3://durable-data/features/{{ ds }}/", "LocalPath": "/opt/ml/processing/output",
                "S3UploadMode": "EndOfJob"}}]},
            "ProcessingResources": {"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.xlarge",
                                                      "VolumeSizeInGB": 10}},
            "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
        },
        deferrable=True,
        check_interval=60,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )
